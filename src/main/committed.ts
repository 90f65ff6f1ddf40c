import type { EventSummary } from '../shared/contract/events'
import { toDisposable } from '../shared/disposable'
import type { Disposable } from '../shared/disposable'
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
  const listeners = new Set<CommittedListener>()
  return {
    publish(batch) {
      if (batch.events.length === 0) return
      for (const listener of [...listeners]) {
        try {
          listener(batch)
        } catch (error) {
          log.error('a committed-events subscriber threw; the others still got the batch', {
            origin: batch.origin.kind,
            events: batch.events.length,
            error,
          })
        }
      }
    },
    subscribe(listener) {
      const entry: CommittedListener = (batch) => listener(batch)
      listeners.add(entry)
      return toDisposable(() => listeners.delete(entry))
    },
  }
}
