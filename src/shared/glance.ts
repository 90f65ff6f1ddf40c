/** The one-line answer to "is anything wrong?": computed once, here, for the desktop tray (its
 * tooltip and menu) and the Overview's header, so both say the same words from the same figures.
 * Pure: the callers pass what they follow (pushes in the shell, stores in the renderer). */
import { statusLabel, statusRank, statusTone, worstStatus } from './chains/health'
import type { ChainStatusKind, StatusTone } from './chains/health'

export interface GlanceChain {
  status: ChainStatusKind
  enabled?: boolean
  name: string
}

export interface GlanceInput {
  /** Every chain as last polled; null before the first poll. */
  chains: readonly GlanceChain[] | null
  /** Open incidents; null while not known (the alerts capability has not answered yet). */
  openIncidents: number | null
  /** New events stored in the last minute, of every origin (listener, relay sources); null when
   * not known. */
  eventsPerMinute: number | null
  /** Of those, the events synced from relay sources: the figure says where they came from. */
  relayedPerMinute?: number
  /** Forward targets whose last attempt failed (0 or absent: none). */
  failingTargets?: number
  /** Relay sources that cannot be followed now (unreachable, refused, no token, storage). */
  troubledSources?: number
  /** The webhook listener is not running (port taken, TLS files missing). */
  listenerDown?: boolean
  /** listener.publicUrl was checked and does not reach this listener. */
  publicUrlUnreachable?: boolean
  /** The listener holds no webhook secret (or cannot read them): every delivery is rejected. */
  listenerWithoutSecrets?: boolean
  /** The database does not take commits (full, locked, failing, stalled). */
  storageProblem?: string | null
  /** Stored event ids redelivered as suspected replays in the last 24 h (the replay sentinel). */
  suspectedReplays?: number
  /** The clock guard found this machine's clock off (seconds, positive: ahead); null or absent: not off. */
  clockOffSeconds?: number | null
}

export interface Glance {
  /** "2 incidents · 12 chains, 1 lagging · 38 events/min". */
  line: string
  /** The worst tone of the parts: good only when nothing needs a look. */
  tone: Exclude<StatusTone, 'info'>
  /** Configured chains (enabled and not "not configured"). */
  chains: number
  /** Configured chains per status other than healthy, worst first. */
  unhealthy: { status: ChainStatusKind; count: number; names: string[] }[]
  worst: ChainStatusKind | null
}

const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`
const toneRank: Record<Glance['tone'], number> = { bad: 3, warn: 2, good: 1, muted: 0 }
const worse = (a: Glance['tone'], b: Glance['tone']) => (toneRank[b] > toneRank[a] ? b : a)

/** Relay source states that mean "not syncing now" (disabled is a choice, connecting a moment). */
export const troubledSourceStates: ReadonlySet<string> = new Set([
  'no-token',
  'unreachable',
  'refused',
  'storage',
])

export const isConfiguredChain = (c: GlanceChain) => c.status !== 'not_configured' && c.enabled !== false

export function glance(input: GlanceInput): Glance {
  const parts: string[] = []
  let tone: Glance['tone'] = 'muted'

  if (input.openIncidents !== null) {
    parts.push(input.openIncidents === 0 ? 'no incidents' : plural(input.openIncidents, 'incident'))
    // None open is no verdict by itself: with nothing watched the tray stays idle, not green.
    if (input.openIncidents > 0) tone = worse(tone, 'bad')
  }

  const configured = (input.chains ?? []).filter(isConfiguredChain)
  const worst = worstStatus(configured.map((c) => c.status))
  const unhealthy = unhealthyOf(configured)
  parts.push(chainPart(input.chains, configured.length, unhealthy))
  if (worst) tone = worse(tone, chainTone(worst))

  if (input.listenerDown) {
    parts.push('listener not running')
    tone = worse(tone, 'bad')
  }
  if (input.listenerWithoutSecrets) {
    parts.push('listener has no webhook secret')
    tone = worse(tone, 'bad')
  }
  if (input.storageProblem) {
    parts.push(`storage ${input.storageProblem}`)
    tone = worse(tone, 'bad')
  }
  if (input.publicUrlUnreachable) {
    parts.push('public URL unreachable')
    tone = worse(tone, 'bad')
  }
  if (input.suspectedReplays) {
    parts.push(`${plural(input.suspectedReplays, 'suspected replay')} in 24 h`)
    tone = worse(tone, 'bad')
  }
  if (input.failingTargets) {
    parts.push(`${plural(input.failingTargets, 'forward target')} failing`)
    tone = worse(tone, 'bad')
  }
  if (input.clockOffSeconds !== undefined && input.clockOffSeconds !== null) {
    const s = input.clockOffSeconds
    parts.push(`clock ${Math.round(Math.abs(s))} s ${s < 0 ? 'behind' : 'ahead'}`)
    tone = worse(tone, 'warn')
  }
  if (input.troubledSources) {
    parts.push(`${plural(input.troubledSources, 'relay source')} not syncing`)
    tone = worse(tone, 'warn')
  }
  if (input.eventsPerMinute !== null)
    parts.push(eventsPart(input.eventsPerMinute, input.relayedPerMinute ?? 0))

  return { line: parts.join(' · '), tone, chains: configured.length, unhealthy, worst }
}

/** "38 events/min (26 relayed)": every origin counted, the relay sources' share labelled. */
function eventsPart(total: number, relayed: number): string {
  const figure = `${total.toLocaleString('en-US')} events/min`
  if (relayed === 0) return figure
  if (relayed === total) return `${figure} (all relayed)`
  return `${figure} (${relayed.toLocaleString('en-US')} relayed)`
}

function chainTone(status: ChainStatusKind): Glance['tone'] {
  const t = statusTone[status]
  return t === 'info' ? 'muted' : t
}

function unhealthyOf(configured: readonly GlanceChain[]): Glance['unhealthy'] {
  const byStatus = new Map<ChainStatusKind, string[]>()
  for (const c of configured) {
    if (c.status === 'healthy' || c.status === 'checking') continue
    byStatus.set(c.status, [...(byStatus.get(c.status) ?? []), c.name])
  }
  return [...byStatus]
    .map(([status, names]) => ({ status, count: names.length, names }))
    .sort((a, b) => statusRank(a.status) - statusRank(b.status))
}

function chainPart(
  all: readonly GlanceChain[] | null,
  configured: number,
  unhealthy: Glance['unhealthy'],
): string {
  if (all === null || all.length === 0) return 'chains: waiting for the first poll'
  if (configured === 0) return 'no chains configured'
  const head = plural(configured, 'chain')
  if (unhealthy.length === 0) return `${head}${configured === 1 ? '' : ', all'} healthy`
  return [head, ...unhealthy.map((u) => `${u.count} ${statusLabel[u.status]}`)].join(', ')
}

/** The tone of a head lag against the chain's thresholds: under the lagging threshold good, up to
 * the stalled threshold warn, beyond it bad; muted when not measured. */
export function lagTone(
  lagSeconds: number | null,
  thresholds: { laggingAfterSeconds: number; stalledAfterSeconds: number },
): Glance['tone'] {
  if (lagSeconds === null) return 'muted'
  if (lagSeconds >= thresholds.stalledAfterSeconds) return 'bad'
  if (lagSeconds >= thresholds.laggingAfterSeconds) return 'warn'
  return 'good'
}
