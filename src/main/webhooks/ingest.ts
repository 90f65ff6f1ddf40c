import type { EventSummary, Rejection } from '../../shared/contract/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import type { Committer } from './committer'
import type { IncomingEvent } from './store'

export interface CommitOutcome {
  summary: EventSummary
  duplicate: boolean
}

export interface Ingest {
  /** Resolves once the event is durably committed (or a duplicate counted): only then may the
   * listener answer 200. An error value means nothing was stored: answer 503 so the sender retries. */
  commit(event: IncomingEvent): Promise<Result<CommitOutcome>>
  /** Recorded with the next commit; nobody waits for it. */
  reject(rejection: Rejection): void
  /** Waits for the commit in flight and commits whatever is still queued (used on stop). */
  drain(): Promise<void>
}

const maxRejectionsQueued = 1000

/** Group commit: deliveries that arrive in the same turn of the event loop go to the committer
 * together, without waiting for the commit before them; the worker committer joins every batch
 * that queued up while its previous transaction ran into one transaction and one fsync. Each
 * delivery is answered once its own transaction is durable. */
export function createIngest(
  committer: Committer,
  log: Logger,
  onCommitted: (summaries: EventSummary[]) => void,
): Ingest {
  let pending: { event: IncomingEvent; resolve: (r: Result<CommitOutcome>) => void }[] = []
  let rejections: Rejection[] = []
  let scheduled = false
  const inFlight = new Set<Promise<void>>()

  const schedule = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(flush)
  }

  function flush(): void {
    scheduled = false
    if (pending.length === 0 && rejections.length === 0) return
    const batch = pending
    const rejected = rejections
    pending = []
    rejections = []
    const committing = commitBatch(batch, rejected).finally(() => inFlight.delete(committing))
    inFlight.add(committing)
  }

  async function commitBatch(batch: typeof pending, rejected: Rejection[]): Promise<void> {
    let summaries: EventSummary[]
    try {
      summaries = await committer.commit(
        batch.map((b) => b.event),
        rejected,
      )
    } catch (error) {
      log.error('webhook commit failed; answering 503 so the service retries', { error, count: batch.length })
      const failure = err('unavailable', `The event could not be stored (${(error as Error).message}).`)
      for (const b of batch) b.resolve(failure)
      return
    }
    batch.forEach((b, i) =>
      b.resolve(ok({ summary: summaries[i]!, duplicate: summaries[i]!.deliveries > 1 })),
    )
    if (summaries.length > 0) onCommitted(summaries)
  }

  return {
    commit: (event) =>
      new Promise((resolve) => {
        pending.push({ event, resolve })
        schedule()
      }),
    reject(rejection) {
      // A flood of bad requests must not grow memory without bound: keep the newest.
      if (rejections.length >= maxRejectionsQueued) rejections.shift()
      rejections.push(rejection)
      schedule()
    },
    async drain() {
      while (inFlight.size > 0 || pending.length > 0 || rejections.length > 0) {
        flush()
        await Promise.all([...inFlight])
      }
    },
  }
}

/** Coalesces committed events into one push per window, newest kept when a window overflows. */
export function createBatchedPublisher(
  publish: (payload: { events: EventSummary[]; omitted: number }) => void,
  windowMs = 150,
  maxPerPush = 500,
): { add(summaries: EventSummary[]): void; stop(): void } {
  let buffered = new Map<string, EventSummary>()
  let timer: NodeJS.Timeout | null = null
  const send = () => {
    timer = null
    const all = [...buffered.values()]
    buffered = new Map()
    const events = all.slice(-maxPerPush)
    publish({ events, omitted: all.length - events.length })
  }
  return {
    add(summaries) {
      for (const s of summaries) {
        buffered.delete(s.id)
        buffered.set(s.id, s)
      }
      timer ??= setTimeout(send, windowMs)
    },
    stop() {
      if (timer) {
        clearTimeout(timer)
        send()
      }
    },
  }
}
