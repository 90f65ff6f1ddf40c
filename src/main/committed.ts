import type { EventSummary } from '../shared/contract/events'
import type { Disposable } from '../shared/disposable'
import { Emitter } from '../shared/emitter'
import { createLogger } from './log'
import type { Logger } from './log'

/** Where a committed batch came from: the console's own listener, or a relay it follows (a
 * catch-up page or the live stream). */
export type CommitOrigin = { kind: 'listener' } | { kind: 'source'; source: string }

/** One event of a committed transaction: its summary as stored, and whether this delivery was a
 * redelivery of an id already stored (no new row). */
export interface CommittedEvent {
  summary: EventSummary
  duplicate: boolean
}

/** Every event of one durable transaction, in commit order. */
export interface CommittedBatch {
  origin: CommitOrigin
  events: readonly CommittedEvent[]
}

export type CommittedListener = (batch: CommittedBatch) => void

/** The typed, lossless channel of committed events: every batch the database took reaches every
 * subscriber, whole, synchronously, in commit order (no window, no cap, no coalescing). Alerts,
 * the forwarder's wake-up, quiet-endpoint tracking and the screen's batched push each subscribe;
 * what a subscriber does with a burst (coalesce, page, summarise) is its own decision. */
export interface CommittedEvents {
  /** Called by a writer once its transaction is durable. A subscriber that throws is logged and the
   * others still get the batch. */
  publish(batch: CommittedBatch): void
  subscribe(listener: CommittedListener): Disposable
}

export function createCommittedEvents(options: { log?: Logger } = {}): CommittedEvents {
  const log = options.log ?? createLogger()
  const batches = new Emitter<CommittedBatch>({
    onListenerError: (error, batch) =>
      log.error('a committed-events subscriber threw; the others still got the batch', {
        origin: batch.origin.kind,
        events: batch.events.length,
        error,
      }),
    onLeakWarning: (listeners) =>
      log.warn('committed-events subscribers keep growing: one is never disposed', { listeners }),
  })
  return {
    publish(batch) {
      if (batch.events.length > 0) batches.fire(batch)
    },
    subscribe: batches.event,
  }
}
