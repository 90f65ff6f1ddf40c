import type { Database } from 'better-sqlite3'
import type { ServiceMetrics } from '../contribution'
import type { Config } from '../../shared/config'
import type { EventArrival, EventSummary } from '../../shared/contract/events'
import type { ReplayStatus } from '../../shared/contract/replay'
import type { Disposable } from '../../shared/disposable'
import type { CommittedBatch, CommittedEvents } from '../committed'
import type { StorageHealth } from '../db'
import type { Logger } from '../log'
import type { AppContext } from '../context'
import { classifyArrivals } from './ladder'
import type { Arrival, Classified, Tolerance } from './ladder'
import { createReplayStore } from './store'
import type { ReplayStore } from './store'

export { classifyArrivals, classifyRedelivery, ladderTotalMs, retryLadderMs } from './ladder'
export type { Arrival, Classified, Tolerance } from './ladder'
export { recordArrivalOnCommit } from './store'

/** The rule this capability raises (docs/alerts.md). */
export const replayRule = 'webhook.replay_suspected'

/** What the sentinel raises through the alerts capability: an instant alert (no incident). */
export interface ReplayAlert {
  rule: typeof replayRule
  subject: string
  title: string
  body: string
}

export interface ReplayDeps {
  db: Database
  committed: CommittedEvents
  config(): Config['replay']
  storage: StorageHealth
  log: Logger
  /** Raised once per id, at its first suspected replay. */
  alert(alert: ReplayAlert): void
  /** Told when the status changed (a suspect recorded): the `replay.status` push. */
  changed?(status: ReplayStatus): void
  now?: () => number
  /** One stored event by its seq (the webhooks store): with it, the start re-examines the newest
   * redeliveries, so an alert owed from before a crash is raised. */
  eventAt?(seq: number): EventSummary | null
}

export interface ReplaySentinel extends Disposable {
  status(): ReplayStatus
  /** One stored event's arrivals with their verdicts (the Events view's detail, the API). */
  arrivals(event: EventSummary): EventArrival[]
}

const dayMs = 86_400_000
const recentShown = 5
/** Arrivals re-examined at start (the newest): far more than can arrive between a commit and its
 * classification, bounded so a start stays quick. */
const catchUpArrivals = 10_000

export const toleranceOf = (c: Config['replay']): Tolerance => ({
  seconds: c.toleranceSeconds,
  percent: c.tolerancePercent,
})

/** The replay sentinel (issue 32.1): follows the listener's committed redeliveries on the
 * committed-events channel (off the ingest path: the arrival itself was recorded in the commit),
 * classifies each against the retry ladder, and records and alerts an id's first suspected replay.
 * A suspected replay is a duplicate: it was never enqueued for forwarding (the outbox takes first
 * deliveries only) nor relayed as an authorization. */
export function startReplaySentinel(deps: ReplayDeps): ReplaySentinel {
  const store = createReplayStore(deps.db)
  const now = deps.now ?? Date.now
  const log = deps.log.child({ capability: 'replay' })
  const counts = { retries: 0, suspected: 0 }
  const status = (): ReplayStatus => {
    const { count, recent } = reading(
      deps,
      'replay suspects',
      () => store.suspectsSince(now() - dayMs, recentShown),
      {
        count: 0,
        recent: [],
      },
    )
    return { lastDay: count, recent, ...counts, tolerance: toleranceOf(deps.config()) }
  }
  const arrivals = (event: EventSummary) =>
    withVerdicts(
      reading(deps, 'event arrivals', () => store.arrivals(event.seq), []),
      event,
      toleranceOf(deps.config()),
    )

  /** `fresh`: how many of its arrivals are new (counted); all of them (none counted) at start. */
  const examine = (event: EventSummary, fresh: number, count = true) => {
    const classified = arrivals(event)
    const news = classified.slice(-fresh)
    for (const a of count ? news : []) {
      if (a.verdict === 'retry') counts.retries++
      if (a.verdict === 'suspected_replay') counts.suspected++
    }
    const first = classified.find((c) => c.verdict === 'suspected_replay')
    if (!first || !news.includes(first)) return
    const suspect = {
      id: event.id,
      type: event.type,
      at: first.at,
      remote: first.remote,
      reason: first.reason,
    }
    const raise = () => {
      log.warn('suspected replay of a stored event', {
        id: event.id,
        remote: first.remote,
        reason: first.reason,
      })
      deps.alert(replayAlert(event, first))
    }
    if (recordOnce(deps, store, event.seq, suspect, raise)) deps.changed?.(status())
  }

  const off = deps.committed.subscribe((batch) => {
    for (const [event, fresh] of redeliveries(batch)) examine(event, fresh)
  })
  // Owed from before a restart: redeliveries committed but never classified (a crash between).
  const eventAt = deps.eventAt
  if (eventAt)
    for (const seq of reading(deps, 'event arrivals', () => store.unexamined(catchUpArrivals), [])) {
      const event = eventAt(seq)
      if (event) examine(event, event.deliveries, false)
    }
  return { status, arrivals, dispose: () => off.dispose() }
}

/** The listener's redeliveries of one batch, each event with how many of its arrivals are new. */
function redeliveries(batch: CommittedBatch): Map<EventSummary, number> {
  const out = new Map<EventSummary, number>()
  if (batch.origin.kind !== 'listener') return out
  const bySeq = new Map<number, EventSummary>()
  for (const e of batch.events) {
    if (!e.duplicate) continue
    // The last summary of a seq in the batch is its newest state.
    const previous = bySeq.get(e.summary.seq)
    const fresh = previous ? out.get(previous)! + 1 : 1
    if (previous) out.delete(previous)
    bySeq.set(e.summary.seq, e.summary)
    out.set(e.summary, fresh)
  }
  return out
}

/** Arrivals with verdicts: the listener's own, on its endpoint's retry ladder. An event stored
 * before the sentinel existed has fewer arrivals recorded than deliveries: its first delivery
 * (received_at) stands in for the missing first arrival. Not so for an event first stored from a
 * relay (`source`): that delivery went to the relay's endpoint, another ladder, and was no 200 of
 * this listener's (taking it for one called the listener's own first arrival a replay). */
export function withVerdicts(recorded: Arrival[], event: EventSummary, tolerance: Tolerance): Classified[] {
  const relayFirst = event.source != null
  const all =
    !relayFirst && recorded.length < event.deliveries && (recorded[0]?.at ?? Infinity) > event.receivedAt
      ? [{ at: event.receivedAt, remote: null, conflicted: false }, ...recorded]
      : recorded
  const classified = classifyArrivals(all, event.createdAtMs, tolerance)
  if (relayFirst && classified[0])
    classified[0] = {
      ...classified[0],
      reason: `the first arrival of this id at this listener (it was caught up from ${event.source} before: another endpoint, its own retries)`,
    }
  return classified
}

/** A read port (MCP, CLI): one stored event's arrivals with their verdicts, read off `db`. */
export function readArrivals(db: Database, event: EventSummary, tolerance: Tolerance): EventArrival[] {
  return withVerdicts(createReplayStore(db).arrivals(event.seq), event, tolerance)
}

/** A read port (MCP): the ids whose first suspected replay came since `since`, newest first. */
export function readSuspects(
  db: Database,
  since: number,
  limit: number,
): ReturnType<ReplayStore['suspectsSince']> {
  return createReplayStore(db).suspectsSince(since, limit)
}

function replayAlert(event: EventSummary, arrival: Classified): ReplayAlert {
  const from = arrival.remote ?? 'an unknown address'
  return {
    rule: replayRule,
    subject: `event:${event.id}`, // its link opens the event
    title: `Suspected replay of ${event.id} from ${from}`,
    body:
      `${event.type} ${event.id} arrived again from ${from} at ${new Date(arrival.at).toISOString()}: ${arrival.reason}. ` +
      'It was answered 200 as a duplicate and not forwarded. The signature carries no timestamp, so a captured ' +
      'delivery verifies for ever: unless you retried it from the service’s dashboard, find who can reach the ' +
      'listener from that address and rotate the endpoint’s secret (watchdesk webhooks create, then delete the old endpoint).',
  }
}

/** Records the id's first suspect and raises its alert in the same commit (the alert's outbox row
 * is written on this database): a process killed between two commits would leave a suspect on
 * record whose alert never went out, and the next start re-examines only ids with none. True when
 * this call recorded it. A database that cannot take the write must not silence the alert: it is
 * raised anyway, the storage fault shown. */
function recordOnce(
  deps: ReplayDeps,
  store: ReplayStore,
  seq: number,
  suspect: Parameters<ReplayStore['recordSuspect']>[1],
  raise: () => void,
): boolean {
  try {
    const recorded = deps.db.transaction(() => {
      const first = store.recordSuspect(seq, suspect)
      if (first) raise()
      return first
    })()
    deps.storage.committed()
    return recorded
  } catch (error) {
    deps.storage.failed('replay suspect', error)
    // Rolled back with the record, the alert's outbox row too: raised again (the alerts send it
    // straight away when their outbox cannot take it either).
    raise()
    return true
  }
}

function reading<T>(deps: ReplayDeps, what: string, read: () => T, fallback: T): T {
  try {
    return read()
  } catch (error) {
    deps.storage.failed(what, error)
    return fallback
  }
}

/** What the console's sentinel needs of the others (services.ts wires them). */
export interface ReplayNeeds {
  /** Raises an instant alert (the alerts capability). */
  alert(alert: ReplayAlert): void
  /** The stored events after `seq`, and one by id (the webhooks store). */
  eventsAfter(seq: number, limit: number): { seq: number; id: string }[]
  eventById(id: string): EventSummary | null
}

/** The console's replay sentinel, with its figures for `/metrics`. */
export type ConsoleReplaySentinel = ReplaySentinel & ServiceMetrics

/** The replay sentinel over the console's database and committed events, pushing its status. */
export function startReplay(ctx: AppContext, needs: ReplayNeeds): ConsoleReplaySentinel {
  const replay = startReplaySentinel({
    db: ctx.db,
    committed: ctx.committed,
    config: () => ctx.config().replay,
    storage: ctx.storage,
    log: ctx.log,
    alert: (a) => needs.alert(a),
    changed: (status) => ctx.push.publish('replay.status', status),
    eventAt: (seq) => {
      const head = needs.eventsAfter(seq - 1, 1)[0]
      return head?.seq === seq ? needs.eventById(head.id) : null
    },
  })
  return {
    ...replay,
    metrics: async (registry) =>
      (await import('./metrics')).registerReplayMetrics(registry, () => replay.status()),
  }
}

export { contribution } from './contribution'
