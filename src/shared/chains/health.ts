/** Health evaluation of one chain from one poll: pure, shared by the poller, the CLI and tests. */

export const chainStatuses = [
  'wrong_network',
  'down',
  'stalled',
  'halted',
  'syncing',
  'failing',
  'lagging',
  'checking',
  'healthy',
  'not_configured',
] as const
export type ChainStatusKind = (typeof chainStatuses)[number]

/** Worst first: the order of the Chains view, and how the tray picks its colour. */
export const statusRank = (status: ChainStatusKind): number => chainStatuses.indexOf(status)

export const statusLabel: Record<ChainStatusKind, string> = {
  wrong_network: 'wrong network',
  down: 'down',
  stalled: 'stalled',
  halted: 'halted',
  syncing: 'syncing',
  failing: 'failing',
  lagging: 'lagging',
  checking: 'checking',
  healthy: 'healthy',
  not_configured: 'not configured',
}

export type StatusTone = 'good' | 'warn' | 'bad' | 'muted' | 'info'
export const statusTone: Record<ChainStatusKind, StatusTone> = {
  wrong_network: 'bad',
  down: 'bad',
  stalled: 'bad',
  halted: 'warn',
  syncing: 'warn',
  failing: 'warn',
  lagging: 'warn',
  checking: 'info',
  healthy: 'good',
  not_configured: 'muted',
}

/** Statuses that make `watchdesk chains` exit non-zero. */
export const alarmStatuses: readonly ChainStatusKind[] = ['wrong_network', 'down', 'stalled']

export interface Thresholds {
  /** Head older than this (or that many block times behind the reference): lagging. */
  laggingAfterSeconds: number
  /** Head not advanced for this long: stalled. */
  stalledAfterSeconds: number
  /** Hysteresis: while the head is already late, it is well again only below this fraction of
   * each threshold (1 or absent: none). The reasons still name the thresholds themselves. */
  hold?: number
}

/** Derived from the block time: five blocks (at least 10 s) to lag, twenty (at least 60 s) to
 * stall, so a 12 s chain is not flagged for one slow slot and a 0.25 s chain is not let off for
 * minutes. A chain whose blocks follow demand (`quietMs`: its longest normal pause, Arbitrum's
 * a minute) lags only past 1.5 such pauses and stalls past 3, so a quiet minute pages no one.
 * Both are editable per chain in the config; the poller raises them further from the block ages
 * it measures (checks/age-thresholds.ts). */
export function defaultThresholds(blockTimeMs: number, quietMs = 0): Thresholds {
  const blockSeconds = blockTimeMs / 1000
  const quietSeconds = quietMs / 1000
  return {
    laggingAfterSeconds: Math.max(10, Math.round(5 * blockSeconds), Math.round(1.5 * quietSeconds)),
    stalledAfterSeconds: Math.max(60, Math.round(20 * blockSeconds), Math.round(3 * quietSeconds)),
  }
}

/** Statuses that a single poll may show but that count only once confirmed (debounced): a
 * chain is called down, stalled or on the wrong network after `confirmFailures` polls in a row
 * and at least `confirmMs`, whichever is later; until then it is "failing (n/N)". */
export const confirmedStatuses: readonly ChainStatusKind[] = ['wrong_network', 'down', 'stalled']
export const defaultConfirmFailures = 3
export const confirmMinMs = 15_000

/** Finalized head further behind than this raises the finality rule. Finality follows the chain:
 * Ethereum finalizes after two epochs (~13 min), rollups after their batch reaches a finalized L1
 * block (~20-40 min), fast-finality chains within seconds. Editable per chain. */
const finalityOverrides: Record<number, number> = { 1: 1_200, 10: 3_600, 42161: 3_600, 137: 600 }
export function defaultFinalizedLagSeconds(serviceId: number, blockTimeMs: number): number {
  return finalityOverrides[serviceId] ?? Math.max(300, Math.round((100 * blockTimeMs) / 1000))
}

/** Error rate and p95 latency over the last 15 minutes: above these, the chain's quality rules fire. */
export const defaultErrorRateAbove = 0.05
export const defaultP95AboveMs = 1_000
export const qualityWindowMs = 15 * 60_000

export interface Observation {
  /** Why the chain is not polled (no URL, no project uid, disabled), or null when it is. */
  notConfigured: string | null
  /** The failure of this poll, or null when the node answered. */
  error: string | null
  /** A mismatch between what the node says it is and the registry, or null. */
  identityMismatch: string | null
  /** Now minus the head block's timestamp; null when the node refuses eth_getBlockByNumber. */
  blockAgeSeconds: number | null
  /** Time since the head last advanced, as seen by this poller. */
  sinceHeadAdvancedSeconds: number | null
  /** Blocks behind the corroborated head (docs/chains.md), when references corroborate one. */
  referenceLagBlocks: number | null
  blockTimeMs: number
  /** What eth_syncing answered: null when not syncing or not asked. */
  syncing?: { currentBlock: number | null; highestBlock: number | null } | null
  /** The node's head, and how many references that answer the right network stand at or below
   * it (none ahead): with such references, an old head is the chain's (halted, or every source
   * stuck), not the node's. null when no reference answers or one is ahead. */
  head?: number | null
  referencesNotAhead?: number | null
}

export interface Evaluation {
  status: ChainStatusKind
  /** One sentence an operator can act on. */
  reason: string
}

export function evaluateHealth(o: Observation, t: Thresholds): Evaluation {
  if (o.notConfigured !== null) return { status: 'not_configured', reason: o.notConfigured }
  if (o.error !== null) return { status: 'down', reason: o.error }
  if (o.identityMismatch !== null) return { status: 'wrong_network', reason: o.identityMismatch }
  if (o.syncing) {
    const { currentBlock, highestBlock } = o.syncing
    const progress =
      currentBlock !== null && highestBlock !== null
        ? ` at block ${currentBlock} of ${highestBlock} (${highestBlock - currentBlock} to go)`
        : ''
    return {
      status: 'syncing',
      reason: `The node is still syncing${progress}: its head is not the chain's. Wait for it, or point the chain at a synced node.`,
    }
  }
  const hold = t.hold ?? 1
  const staleness = o.blockAgeSeconds ?? o.sinceHeadAdvancedSeconds
  const measured = o.blockAgeSeconds !== null ? 'the head block is' : 'the head has not advanced for'
  if (o.referencesNotAhead && staleness !== null) {
    // Every reference agrees with the node: an old head is the chain's, never the node's lag.
    if (staleness <= t.stalledAfterSeconds * hold) return { status: 'healthy', reason: 'At the chain head.' }
    const refs = `${o.referencesNotAhead} reference${o.referencesNotAhead === 1 ? '' : 's'}`
    return {
      status: 'halted',
      reason: `Halted or all sources stuck — not your node: no new block for ${fmt(staleness)} s, at height ${o.head ?? '?'}; the node and ${refs} stand there together (halted after ${t.stalledAfterSeconds} s).`,
    }
  }
  if (staleness !== null && staleness > t.stalledAfterSeconds * hold) {
    return {
      status: 'stalled',
      reason: `${measured} ${fmt(staleness)} s old (stalled after ${t.stalledAfterSeconds} s).`,
    }
  }
  const laggingBlocks = Math.max(1, Math.ceil((t.laggingAfterSeconds * 1000) / o.blockTimeMs))
  if (o.referenceLagBlocks !== null && o.referenceLagBlocks > laggingBlocks) {
    return {
      status: 'lagging',
      reason: `${o.referenceLagBlocks} blocks behind the corroborated head of its references (lagging after ${laggingBlocks}).`,
    }
  }
  if (staleness !== null && staleness > t.laggingAfterSeconds * hold) {
    return {
      status: 'lagging',
      reason: `${measured} ${fmt(staleness)} s old (lagging after ${t.laggingAfterSeconds} s).`,
    }
  }
  return { status: 'healthy', reason: 'At the chain head.' }
}

const fmt = (seconds: number) => (seconds < 10 ? seconds.toFixed(1) : Math.round(seconds).toString())

/** The worst of a set of statuses (the Overview strip's summary and the tray icon). */
export function worstStatus(statuses: readonly ChainStatusKind[]): ChainStatusKind | null {
  let worst: ChainStatusKind | null = null
  for (const s of statuses) if (worst === null || statusRank(s) < statusRank(worst)) worst = s
  return worst
}
