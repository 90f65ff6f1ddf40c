import type { EventSummary, Rejection } from '../../shared/contract/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { CommittedEvent } from '../committed'
import type { Logger } from '../log'
import { performance } from 'node:perf_hooks'
import type { Committer, CommitGrouping, StorageFailure } from './committer'
import type { EventParams } from './sql'
import { eventParams } from './store'
import type { IncomingEvent } from './store'

export interface CommitOutcome {
  summary: EventSummary
  duplicate: boolean
  /** A redelivery whose body differs from the stored one. */
  conflict: boolean
}

/** Told after every transaction whether the database took it (for the storage status). */
export interface StorageObserver {
  committed(): void
  failed(failure: StorageFailure): void
}

export interface Ingest {
  /** Resolves once the event is durably committed (or a duplicate counted): only then may the
   * listener answer 200. An error value means nothing was stored: `unavailable` when the database
   * cannot commit now (answer 503 so the sender retries), `bad_request` when this delivery can never
   * be stored (answer 400; the others of its batch are not affected). */
  commit(event: IncomingEvent): Promise<Result<CommitOutcome>>
  /** Recorded with the next commit; nobody waits for it. */
  reject(rejection: Rejection): void
  /** Waits for the commit in flight and commits whatever is still queued (used on stop). */
  drain(): Promise<void>
}

const maxRejectionsQueued = 1000

/** How long a group may gather before it goes to the committer, from the mean gap between
 * arrivals: long enough that about `targetPerCommit` deliveries share a transaction, never longer
 * than `maxWaitMs` (a share of the 25 ms p99 budget), and 0 when fewer than one more delivery is
 * expected within `maxWaitMs` (waiting would add latency and save nothing). So the group grows with
 * the offered rate: alone at 100/s, about `maxWaitMs` worth at 1,000/s, `targetPerCommit` at
 * saturation, where a shorter wait already fills it. */
export function groupWindowMs(meanGapMs: number, grouping: CommitGrouping): number {
  if (!(meanGapMs < grouping.maxWaitMs)) return 0
  return Math.min(grouping.maxWaitMs, (grouping.targetPerCommit - 1) * meanGapMs)
}

/** The mean gap between arrivals (ms), exponentially weighted over the last ~16: a burst shrinks
 * it at once, a quiet spell (a gap counted as at most a second) makes the next delivery go alone. */
export class ArrivalGaps {
  private last = -Infinity
  meanGapMs = 1_000

  arrived(now: number): void {
    const gap = Math.min(1_000, now - this.last)
    this.last = now
    this.meanGapMs += (gap - this.meanGapMs) / 16
  }
}

export interface IngestOptions {
  /** The clock the grouping reads (tests pass a fake one). */
  now?: () => number
  /** The connections the listener holds now (its senders' sockets). With it, a group also goes
   * without waiting out its window once it holds a delivery for every one of them: an HTTP/1.1
   * sender sends its next delivery on a connection only after the answer, so nothing more can
   * join (a sender keeping 8 in flight on 8 connections, a closed loop, is answered at once even
   * when the target is larger). Absent: only `targetPerCommit` ends the wait early. */
  openConnections?: () => number
}

/** A gathering group holds all it waits for: its target, or a delivery from every open connection. */
function groupIsFull(size: number, grouping: CommitGrouping, openConnections?: () => number): boolean {
  return size >= grouping.targetPerCommit || (openConnections !== undefined && size >= openConnections())
}

/** Group commit: deliveries that arrive in the same turn of the event loop go to the committer
 * together, without waiting for the commit before them, up to the committer's `callsAtOnce`
 * outstanding calls: beyond that, what arrives waits and goes in one call when one ends (the
 * worker committer takes one call at a time and spaces its transactions, so one call carries
 * what came in the meantime: one transaction and one fsync for all). A committer with a
 * `grouping` also holds a group until its first delivery waited the window that the offered rate
 * calls for (`groupWindowMs`): each transaction's fixed cost, its fsync and the two thread
 * wake-ups, is then shared by more deliveries as the rate grows. Each delivery is answered once
 * its own transaction is durable. */
export function createIngest(
  committer: Committer,
  log: Logger,
  onCommitted: (events: CommittedEvent[]) => void,
  storage?: StorageObserver,
  options: IngestOptions = {},
): Ingest {
  type Pending = { params: EventParams; resolve: (r: Result<CommitOutcome>) => void }
  let pending: Pending[] = []
  let rejections: Rejection[] = []
  let scheduled = false
  const inFlight = new Set<Promise<void>>()
  const callsAtOnce = committer.callsAtOnce ?? Infinity
  const grouping = committer.grouping ?? null
  const now = options.now ?? (() => performance.now())
  const gaps = new ArrivalGaps()
  /** When the oldest pending delivery arrived. */
  let pendingSince = 0

  /** The window's timer while a group gathers. */
  let holding: NodeJS.Timeout | null = null

  const full = () => groupIsFull(pending.length, grouping!, options.openConnections)

  /** How much longer the pending group should gather (ms); 0: it may go now (a full group too). */
  const holdFor = () =>
    grouping && pending.length > 0 && !full()
      ? groupWindowMs(gaps.meanGapMs, grouping) - (now() - pendingSince)
      : 0

  const schedule = () => {
    if (scheduled) return
    scheduled = true
    const hold = holdFor()
    if (hold > 0) holding = setTimeout(flush, hold)
    else setImmediate(flush)
  }

  function flush(): void {
    scheduled = false
    if (holding) clearTimeout(holding)
    holding = null
    if (pending.length === 0 && rejections.length === 0) return
    // The call that ends takes these up (below).
    if (inFlight.size >= callsAtOnce) return
    const batch = pending
    const rejected = rejections
    pending = []
    rejections = []
    const committing = commitBatch(batch, rejected).then((committed) => {
      inFlight.delete(committing)
      // What waited goes now (or when its group's window ends); rejections alone only after a
      // commit that went through (after a failed one they are queued again, and must not be
      // retried in a loop: they wait for the next delivery).
      if (pending.length > 0 || (committed && rejections.length > 0)) {
        if (holdFor() > 0) schedule()
        else flush()
      }
    })
    inFlight.add(committing)
  }

  /** True when the transaction committed (whatever became of its single deliveries). */
  async function commitBatch(batch: Pending[], rejected: Rejection[]): Promise<boolean> {
    let result: Awaited<ReturnType<Committer['commit']>>
    try {
      result = await committer.commit(
        batch.map((b) => b.params),
        rejected,
      )
    } catch (error) {
      // A bug in a committer, not a storage state: still answer 503, never leave a sender hanging.
      result = { ok: false, failure: { code: null, message: (error as Error).message } }
    }
    if (!result.ok) {
      log.warn('webhook commit failed; answering 503 so the service retries', {
        count: batch.length,
        code: result.failure.code,
        error: result.failure.message,
      })
      storage?.failed(result.failure)
      const failure = err('unavailable', `The event could not be stored (${result.failure.message}).`)
      for (const b of batch) b.resolve(failure)
      // The rejections are kept for the next attempt (bounded like any other).
      for (const r of rejected) keepRejection(r)
      return false
    }
    storage?.committed()
    const summaries: CommittedEvent[] = []
    batch.forEach((b, i) => {
      const item = result.items[i]
      if (item && !item.ok && item.retryable) return b.resolve(err('unavailable', `${item.reason}.`))
      if (!item || !item.ok) {
        const reason = item ? item.reason : 'the store returned no row for this event'
        log.warn('webhook delivery cannot be stored; answering 400', { id: b.params.id, reason })
        return b.resolve(err('bad_request', reason))
      }
      summaries.push({ summary: item.summary, duplicate: item.duplicate })
      b.resolve(ok({ summary: item.summary, duplicate: item.duplicate, conflict: item.conflict }))
    })
    if (summaries.length > 0) {
      try {
        onCommitted(summaries)
      } catch (error) {
        log.error('publishing committed events failed', { error })
      }
    }
    return true
  }

  function keepRejection(rejection: Rejection): void {
    // A flood of bad requests must not grow memory without bound: keep the newest.
    if (rejections.length >= maxRejectionsQueued) rejections.shift()
    rejections.push(rejection)
  }

  return {
    commit(event) {
      let params: EventParams
      try {
        params = eventParams(event)
      } catch (error) {
        // Only a pathological value gets here (parse bounds its depth): refuse it alone.
        return Promise.resolve(err('bad_request', `the event cannot be stored (${(error as Error).message})`))
      }
      const at = now()
      if (grouping) gaps.arrived(at)
      return new Promise((resolve) => {
        if (pending.length === 0) pendingSince = at
        pending.push({ params, resolve })
        // A full group goes without waiting out its window (closed-loop senders wait for it).
        if (holding && full()) flush()
        else schedule()
      })
    },
    reject(rejection) {
      keepRejection(rejection)
      schedule()
    },
    async drain() {
      // Bounded: while the database cannot commit, rejections would be queued again for ever.
      for (let round = 0; round < 3; round++) {
        if (inFlight.size === 0 && pending.length === 0 && rejections.length === 0) return
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
    try {
      publish({ events, omitted: all.length - events.length })
    } catch {
      // A failing subscriber must not take the timer (and the process) down; the push bus logs.
    }
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
