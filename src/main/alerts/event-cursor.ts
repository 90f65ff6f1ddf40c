import type { Config } from '../../shared/config'
import type { Alert } from '../../shared/contract/alerts'
import type { EventSummary } from '../../shared/contract/events'
import type { PollClock } from '../../shared/clock'
import type { Disposable } from '../../shared/disposable'
import type { CommittedEvents } from '../committed'
import { eventAlerts } from './event-alerts'
import type { EventHead } from './event-alerts'
import type { AlertStore } from './store'
import type { GuardedWrite } from './parts'

/** The longest an event alert waits for a burst (a catch-up) to end before it is sent anyway. */
const burstHoldMs = 30_000
const pageSize = 10_000
/** A short pause before reading, so commits back to back make one round. */
const coalesceMs = 200
// Without alerts to queue, the cursor is made durable at most every `cursorEveryMs` (and on
// stop): each write is a commit with its fsync on the listener's thread, which first waits for
// the commit worker's lock, and it came every 200 ms while events arrived (the ingest profile).
// Events read again after a crash alerted nothing the first time, so none is sent twice.
const cursorEveryMs = 10_000

export interface EventCursorDeps {
  store: Pick<AlertStore, 'eventCursor'>
  config(): Config['alerts']
  clock: PollClock
  writing: GuardedWrite
  committed: CommittedEvents
  eventsAfter(seq: number, limit: number): EventHead[]
  eventSummary(id: string): EventSummary | null
  burstArriving?(): boolean
  /** Queues the alerts' outbox rows with the new cursor in one transaction (the sender). */
  enqueueAll(alerts: Alert[], cursor: number): boolean
  stopped(): boolean
}

export interface EventCursor extends Disposable {
  /** When an event on `endpoint` ('*': any) was last committed; undefined when none since start. */
  lastEventAt(endpoint: string): number | undefined
  /** Reads now every event committed after the cursor, whether or not its notice on the channel
   * came yet (a worker's reply may still be on its way); false when there was none. */
  flush(): boolean
  pending(): boolean
  /** Makes the cursor durable if it moved since its last write (stopping, after the queue). */
  persist(): void
}

/** The event rule's durable cursor over committed events (first deliveries, in commit order). Each
 * round reads everything after the cursor, turns it into alerts (a burst into one summary) and
 * writes their outbox rows with the new cursor in one transaction: a crash loses no event's alert
 * and sends none twice (but for one whose channel answered in the instant before the log write).
 * Reads once at start: events committed before a restart and not alerted yet. */
export function followCommittedEvents(deps: EventCursorDeps): EventCursor {
  const { clock, writing } = deps
  const cfg = deps.config
  const lastEventAt = new Map<string, number>()
  let cursor = writing('alert event cursor', () => deps.store.eventCursor(), 0)
  let durableCursor = cursor
  let cursorWrittenAt = clock.now()
  let reading: NodeJS.Timeout | null = null
  let heldSince: number | null = null

  /** The number of events read. */
  function readEvents(force = false): number {
    reading = null
    if (deps.stopped()) return 0
    if (!force && deps.burstArriving?.()) {
      heldSince ??= Date.now()
      if (Date.now() - heldSince < burstHoldMs) {
        reading = setTimeout(readEvents, coalesceMs)
        return 0
      }
    }
    heldSince = null
    const events = writing('alert events', () => deps.eventsAfter(cursor, pageSize), [] as EventHead[])
    if (events.length === 0) return 0
    const alerts = cfg().disabledRules.includes('event.type')
      ? []
      : eventAlerts(events, cfg().eventTypes, clock.now(), (e) =>
          writing('alert event', () => deps.eventSummary(e.id), null),
        )
    // Queued with the cursor, or (the database takes no writes) sent from memory: either way this
    // process goes on after them; only the durable cursor lags until the next write succeeds.
    const last = events.at(-1)!.seq
    if (alerts.length > 0 || clock.now() - cursorWrittenAt >= cursorEveryMs) persistCursor(alerts, last)
    cursor = last
    // A long backlog (events stored while only `listen` ran) is read page by page, between turns.
    if (events.length === pageSize) reading = setTimeout(() => readEvents(true), 0)
    return events.length
  }
  function persistCursor(alerts: Alert[], last: number): void {
    if (!deps.enqueueAll(alerts, last)) return
    durableCursor = last
    cursorWrittenAt = clock.now()
  }

  const wake = () => (reading ??= setTimeout(readEvents, coalesceMs))
  const subscription = deps.committed.subscribe((batch) => {
    if (deps.stopped()) return
    for (const { summary: e } of batch.events) {
      lastEventAt.set(e.endpoint ?? '*', clock.now())
      lastEventAt.set('*', clock.now())
    }
    if (batch.events.some((e) => !e.duplicate)) wake()
  })
  readEvents()

  return {
    lastEventAt: (endpoint) => lastEventAt.get(endpoint),
    flush() {
      if (reading) clearTimeout(reading)
      return readEvents(true) > 0
    },
    pending: () => reading !== null,
    persist() {
      if (cursor !== durableCursor) persistCursor([], cursor)
    },
    dispose() {
      if (reading) clearTimeout(reading)
      reading = null
      subscription.dispose()
    },
  }
}
