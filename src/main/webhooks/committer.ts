import type { Database } from 'better-sqlite3'
import type { CommitHook } from '../db/commit-hooks'
import type { EventSummary, Rejection } from '../../shared/contract/events'
import { superviseWorker, workerFile } from '../workers'
import type { Logger } from '../log'
import type {
  CommitCalls,
  CommitReply,
  CommittedReply,
  CommitWorkerData,
  ItemResult,
  PruneReply,
  PruneStatement,
  StorageFailure,
} from './commit-protocol'
import { createCommitTransaction } from './commit-transaction'
import { packEvents } from './commit-wire'
import type { EventParams } from './sql'
import { insertedSummary, toSummary } from './store'
import type { ParsedEventParams } from './store'

export type { StorageFailure } from './commit-protocol'

/** One delivery after its transaction committed: stored (a first delivery, a duplicate, or a
 * conflicting redelivery), or refused alone because it can never be stored. */
export type StoredItem =
  | { ok: true; summary: EventSummary; duplicate: boolean; conflict: boolean }
  | { ok: false; reason: string; retryable?: boolean }

export type CommitResult = { ok: true; items: StoredItem[] } | { ok: false; failure: StorageFailure }

/** The write side of an event store, as ingest sees it: the SQLite worker and the in-thread
 * committer here, and a PostgreSQL store (the relay) implement the same three calls. */
export interface Committer {
  /** Deliveries (and the rejections that came with them) in one transaction and one fsync. */
  commit(events: EventParams[], rejections: Rejection[]): Promise<CommitResult>
  /** Marks the listener run alive (a probe write when `run` is null): a small commit that also
   * tells whether the database takes writes again after a fault. Null when it committed. */
  alive(run: number | null, at: number): Promise<StorageFailure | null>
  close(): Promise<void>
  /** A retention batch through the same writer (SQLite committers; src/main/db/retention.ts). */
  prune?(statements: PruneStatement[]): Promise<PruneReply>
  /** How many commit calls ingest keeps outstanding at once; what arrives meanwhile waits and
   * goes in one call when one ends. Unbounded when absent (a PostgreSQL store runs transactions
   * side by side). A committer that runs one transaction at a time gains nothing from more, and
   * each call is a message to its thread. */
  readonly callsAtOnce?: number
  /** Group commit that adapts to the offered rate (ingest.ts `groupWindowMs`); absent, a group goes
   * as soon as the committer takes it. */
  readonly grouping?: CommitGrouping
}

/** How long ingest may hold a group of deliveries for one transaction. */
export interface CommitGrouping {
  /** The longest a delivery waits for others before its transaction starts. */
  maxWaitMs: number
  /** Deliveries per transaction worth waiting for: beyond it the fixed cost is well shared. */
  targetPerCommit: number
}

/** The commit worker's grouping (issue 35): a transaction with its fsync and the two thread
 * wake-ups costs about 350 µs of CPU against about 10 µs per event, so at 1,000/s (1.2–2
 * deliveries per transaction without it) most of a delivery's CPU was its transaction's. 8 ms is a
 * third of the 25 ms p99 budget; at 1,000/s it makes groups of about 8–9. With 5 ms (sessions 8–9:
 * groups of 5.5) the listener spent 415–548 µs per delivery, 2.44–2.63× bare; with 8 ms 372–446 µs,
 * 2.24× (quiet paired runs, session 10; p99 15.9–20.3 ms against 13.2–19.8). */
export const defaultGrouping: CommitGrouping = { maxWaitMs: 8, targetPerCommit: 32 }

export function resultOf(reply: CommitReply): CommitResult {
  if (!reply.ok) return { ok: false, failure: reply.failure }
  return { ok: true, items: reply.items.map(storedItemOf) }
}

/** A commit transaction's answer with the events it answers, in order: a first delivery's summary
 * is its event with the seq it was given (the worker sends no more). */
export function committedResultOf(reply: CommittedReply, events: readonly ParsedEventParams[]): CommitResult {
  if (!reply.ok) return { ok: false, failure: reply.failure }
  if ('insertedFrom' in reply) {
    const items: StoredItem[] = []
    for (let i = 0; i < reply.count; i++)
      items.push({
        ok: true,
        summary: insertedSummary(events[i]!, reply.insertedFrom + i),
        duplicate: false,
        conflict: false,
      })
    return { ok: true, items }
  }
  return {
    ok: true,
    items: reply.items.map((item, i) =>
      'inserted' in item
        ? { ok: true, summary: insertedSummary(events[i]!, item.inserted), duplicate: false, conflict: false }
        : storedItemOf(item),
    ),
  }
}

function storedItemOf(item: ItemResult): StoredItem {
  if (item.ok)
    return {
      ok: true,
      summary: toSummary(item.row),
      duplicate: item.row.deliveries > 1,
      conflict: item.row.conflicted === 1,
    }
  return item.retryable
    ? { ok: false, reason: `the event cannot be stored now (${item.message})`, retryable: true }
    : { ok: false, reason: `the event cannot be stored (${item.message})` }
}

/** In this thread: simple, but the fsync blocks the event loop (tests, tools, the bench baseline). */
export function inThreadCommitter(db: Database, hooks: readonly CommitHook[] = []): Committer {
  const transaction = createCommitTransaction(db, hooks)
  return {
    commit: async (events, rejections) =>
      committedResultOf(transaction.commit([{ id: 0, events, rejections }])[0]!, events),
    alive: async (run, at) => transaction.alive(run, at),
    prune: async (statements) => transaction.prune(statements),
    close: async () => {},
  }
}

/** out/main/commit-worker.js beside the bundle (or one level up from a chunk), out/bench for the
 * benches, or the TypeScript source when the sources run (vitest: Node strips the types). */
export function commitWorkerFile(): string | null {
  return workerFile(import.meta.url, 'commit-worker.js', 'commit-worker.ts')
}

/** A transaction with its fsync costs about 65 µs of CPU (mostly the kernel's) plus about 10 µs
 * per event (bench/scratch figures in docs/benchmarks.md): committing as soon as the previous
 * commit ends made transactions of 3–4 deliveries under load, each paying that fixed cost. Starting
 * at most one transaction per millisecond while deliveries keep coming makes them 15–20 at
 * 16,000/s, for at most a millisecond more per answer; a delivery after a quiet spell still starts
 * its transaction at once. */
export const defaultBatchIntervalMs = 1

export interface WorkerCommitterOptions {
  /** Run in the commit transaction after each event's upsert (src/main/db/commit-hooks.ts). */
  hooks?: readonly CommitHook[]
  /** How long a commit waits for another process's write lock before it fails (and 503 is
   * answered): short, so a sender is not kept waiting. */
  busyTimeoutMs?: number
  /** Group commit (default `defaultBatchIntervalMs`): 0 starts each transaction as soon as the
   * previous one ends. */
  batchIntervalMs?: number
  /** Adaptive group commit (default `defaultGrouping`); null sends each group as soon as the worker
   * takes it (the benches' comparison). */
  grouping?: CommitGrouping | null
  /** Called when the worker died and is started again (for the log). */
  onRestart?: (failure: StorageFailure) => void
  /** The worker's own lines and the slow-commit trace. */
  log?: Logger
}

/** Commits in a worker thread (src/main/workers/ supervises it); requests may be posted while
 * earlier ones are still committing. A worker that dies (an error at open, a crash) fails what was
 * waiting with a storage failure and is started again with back-off, so the listener answers 503
 * meanwhile and recovers by itself. */
export function workerCommitter(file: string, options: WorkerCommitterOptions = {}): Committer {
  const data: CommitWorkerData = {
    file,
    busyTimeoutMs: options.busyTimeoutMs ?? 2_000,
    hooks: options.hooks ?? [],
    batchIntervalMs: options.batchIntervalMs ?? defaultBatchIntervalMs,
  }
  const worker = superviseWorker<CommitCalls, CommitWorkerData>({
    name: 'commit worker',
    file: commitWorkerFile(),
    missing: 'commit-worker.js is missing beside the bundle: rebuild watchdesk (npm run build)',
    data: () => data,
    log: options.log,
    onRestart: (failure) => options.onRestart?.(failure),
  })
  return {
    // One transaction at a time runs in the worker: a second call would only wait there, and
    // every call costs a message (~2.6 µs of the listener's thread, and a wake-up of the worker).
    callsAtOnce: 1,
    ...(options.grouping !== null && { grouping: options.grouping ?? defaultGrouping }),
    async commit(events, rejections) {
      const packed = packEvents(events)
      const reply = await worker.call('commit', { events: packed, rejections }, { transfer: [packed.buffer] })
      return reply.ok ? committedResultOf(reply.value, events) : { ok: false, failure: reply.failure }
    },
    async alive(run, at) {
      const reply = await worker.call('alive', { run, at })
      return reply.ok ? reply.value : reply.failure
    },
    async prune(statements) {
      const reply = await worker.call('prune', statements)
      return reply.ok ? reply.value : { ok: false, failure: reply.failure }
    },
    close: () => worker.close(),
  }
}
