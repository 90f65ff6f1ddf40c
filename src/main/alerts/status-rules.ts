import type { Config } from '../../shared/config'
import type { ListenerStatus } from '../../shared/contract/events'
import type { StorageStatus } from '../../shared/contract/storage'
import type { PollClock } from '../../shared/clock'
import type { Disposable } from '../../shared/disposable'
import type { Condition } from './rules'

const checkEveryMs = 5_000

export interface StatusSnapshot {
  now: number
  /** The webhook listener's status; null when there is none. */
  listener: ListenerStatus | null
  /** Signature rejections counted in the last minute. */
  rejectionsInMinute: number
  storage: StorageStatus
  /** When an event on an endpoint ('*': any) last arrived; undefined when none since the start. */
  lastEventAt(endpoint: string): number | undefined
  startedAt: number
}

/** The rules over what the listener and the storage measure: listener down, signature rejections
 * a minute, storage fault, and each quiet endpoint (alerts.quietMinutes). */
export function statusConditions(s: StatusSnapshot, cfg: Config['alerts']): Condition[] {
  const conditions: Condition[] = []
  if (s.listener) {
    conditions.push({
      rule: 'listener.down',
      subject: 'listener',
      serviceId: null,
      name: 'Webhook listener',
      active: !s.listener.listening,
      title: 'Webhook listener not listening',
      body: s.listener.problem ?? 'The listener is not running.',
    })
  }
  conditions.push({
    rule: 'listener.rejections',
    subject: 'listener',
    serviceId: null,
    name: 'Signature rejections',
    active: s.rejectionsInMinute > cfg.rejectionsPerMinute,
    title: `${s.rejectionsInMinute} signature rejections in a minute`,
    body: `Deliveries with a signature that matches no stored secret: a wrong or rotated webhook secret, or someone else posting. The limit is ${cfg.rejectionsPerMinute} a minute (alerts.rejectionsPerMinute).`,
  })
  conditions.push({
    rule: 'storage.fault',
    subject: 'storage',
    serviceId: null,
    name: 'Storage',
    active: s.storage.state !== 'ok',
    title: `Storage ${s.storage.state}`,
    body: [s.storage.cause, s.storage.fix].filter(Boolean).join(' '),
  })
  for (const [endpoint, minutes] of Object.entries(cfg.quietMinutes))
    conditions.push(quietCondition(s, endpoint, minutes))
  return conditions
}

function quietCondition(s: StatusSnapshot, endpoint: string, minutes: number): Condition {
  const seen = s.lastEventAt(endpoint)
  const last = seen ?? s.startedAt
  return {
    rule: 'listener.quiet',
    subject: `endpoint:${endpoint}`,
    serviceId: null,
    name: endpoint === '*' ? 'Events' : `Endpoint ${endpoint}`,
    active: s.now - last > minutes * 60_000,
    title: `No events ${endpoint === '*' ? '' : `on ${endpoint} `}for ${minutes} min`,
    // Without an event since the start, say so: the start is not an event's arrival.
    body: `${seen === undefined ? `No event since watchdesk started at ${new Date(s.startedAt).toISOString()}` : `The last event arrived ${new Date(last).toISOString()}`}; alerts.quietMinutes.${endpoint} is ${minutes}.`,
  }
}

/** Rejections in the last minute, from a running total sampled at each check. */
function rejectionWindow(): (now: number, total: number) => number {
  const samples: { t: number; n: number }[] = []
  return (now, total) => {
    samples.push({ t: now, n: total })
    while (samples.length > 1 && samples[0]!.t < now - 60_000) samples.shift()
    return samples.at(-1)!.n - samples[0]!.n
  }
}

export interface StatusWatchDeps {
  clock: PollClock
  config(): Config['alerts']
  listener(): ListenerStatus | null
  signatureRejections(): number
  storage(): StorageStatus
  lastEventAt(endpoint: string): number | undefined
  /** Other capabilities' conditions (`AlertsService.watch`), observed with these. */
  watched(): Condition[]
  observe(conditions: Condition[]): void
  stopped(): boolean
}

/** Observes the status rules now and every few seconds until disposed. */
export function watchStatus(deps: StatusWatchDeps): Disposable {
  const { clock } = deps
  const startedAt = clock.now()
  const inMinute = rejectionWindow()
  let next: Disposable | null = null
  function check(): void {
    next = null
    if (deps.stopped()) return
    const now = clock.now()
    const snapshot: StatusSnapshot = {
      now,
      listener: deps.listener(),
      rejectionsInMinute: inMinute(now, deps.signatureRejections()),
      storage: deps.storage(),
      lastEventAt: deps.lastEventAt,
      startedAt,
    }
    deps.observe([...statusConditions(snapshot, deps.config()), ...deps.watched()])
    next = clock.after(checkEveryMs, check)
  }
  check()
  return { dispose: () => next?.dispose() }
}
