import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { Database } from 'better-sqlite3'
import type { CommitHook } from '../db/commit-hooks'
import type { EventSummary, Rejection } from '../../shared/contract/events'
import type {
  CommitReply,
  CommitWorkerData,
  FromWorker,
  PruneReply,
  PruneStatement,
  StorageFailure,
  ToWorker,
} from './commit-protocol'
import { createCommitTransaction, failureOf } from './commit-transaction'
import type { EventParams } from './sql'
import { toSummary } from './store'

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
}

export function resultOf(reply: CommitReply): CommitResult {
  if (!reply.ok) return { ok: false, failure: reply.failure }
  return {
    ok: true,
    items: reply.items.map((item) =>
      item.ok
        ? {
            ok: true,
            summary: toSummary(item.row),
            duplicate: item.row.deliveries > 1,
            conflict: item.row.conflicted === 1,
          }
        : item.retryable
          ? { ok: false, reason: `the event cannot be stored now (${item.message})`, retryable: true }
          : { ok: false, reason: `the event cannot be stored (${item.message})` },
    ),
  }
}

/** In this thread: simple, but the fsync blocks the event loop (tests, tools, the bench baseline). */
export function inThreadCommitter(db: Database, hooks: readonly CommitHook[] = []): Committer {
  const transaction = createCommitTransaction(db, hooks)
  return {
    commit: async (events, rejections) => resultOf(transaction.commit([{ id: 0, events, rejections }])[0]!),
    alive: async (run, at) => transaction.alive(run, at),
    prune: async (statements) => transaction.prune(statements),
    close: async () => {},
  }
}

/** out/main/commit-worker.js beside the bundle (or one level up from a chunk), out/bench for the
 * benches, or the TypeScript source when the sources run (vitest: Node strips the types). */
export function commitWorkerFile(): string | null {
  const here = dirname(fileURLToPath(import.meta.url))
  const candidates = [
    join(here, 'commit-worker.js'),
    join(here, '..', 'commit-worker.js'),
    join(here, 'commit-worker.ts'),
  ]
  return candidates.find((file) => existsSync(file)) ?? null
}

export interface WorkerCommitterOptions {
  /** Run in the commit transaction after each event's upsert (src/main/db/commit-hooks.ts). */
  hooks?: readonly CommitHook[]
  /** How long a commit waits for another process's write lock before it fails (and 503 is
   * answered): short, so a sender is not kept waiting. */
  busyTimeoutMs?: number
  /** Called when the worker died and is started again (for the log). */
  onRestart?: (failure: StorageFailure) => void
}

const firstRestartDelayMs = 250
const maxRestartDelayMs = 5_000

/** Commits in a worker thread; requests may be posted while earlier ones are still committing.
 * A worker that dies (an error at open, a crash) fails what was waiting with a storage failure and
 * is started again with back-off, so the listener answers 503 meanwhile and recovers by itself. */
export function workerCommitter(file: string, options: WorkerCommitterOptions = {}): Committer {
  const workerFile = commitWorkerFile()
  const data: CommitWorkerData = {
    file,
    busyTimeoutMs: options.busyTimeoutMs ?? 2_000,
    hooks: options.hooks ?? [],
  }
  const commits = new Map<number, (reply: CommitReply) => void>()
  const alives = new Map<number, (failure: StorageFailure | null) => void>()
  const prunes = new Map<number, (reply: PruneReply) => void>()
  let nextId = 1
  let worker: Worker | null = null
  let lastFailure: StorageFailure = { code: 'WORKER_STARTING', message: 'the commit worker is starting' }
  let restartDelay = firstRestartDelayMs
  let restartTimer: NodeJS.Timeout | null = null
  let closed = false

  function start(): void {
    restartTimer = null
    if (closed) return
    if (workerFile === null) {
      lost(null, {
        code: 'WORKER_MISSING',
        message: 'commit-worker.js is missing beside the bundle: rebuild watchdesk (npm run build)',
      })
      return
    }
    const w = new Worker(workerFile, { workerData: data })
    // Unreferenced while idle so it never keeps the process up; referenced while closing.
    w.unref()
    w.on('message', (message: FromWorker) => {
      restartDelay = firstRestartDelayMs
      if (message.kind === 'pruned') {
        prunes.get(message.id)?.(message.reply)
        prunes.delete(message.id)
        return
      }
      if (message.kind === 'alive') {
        alives.get(message.id)?.(message.failure)
        alives.delete(message.id)
        return
      }
      for (const reply of message.replies) {
        commits.get(reply.id)?.(reply)
        commits.delete(reply.id)
      }
    })
    w.on('error', (error) => lost(w, failureOf(error)))
    w.on('exit', (code) =>
      lost(w, { code: 'WORKER_EXIT', message: `the commit worker stopped (exit code ${code})` }),
    )
    worker = w
  }

  function lost(w: Worker | null, failure: StorageFailure): void {
    if (w !== worker) return
    worker = null
    lastFailure = failure
    for (const [id, resolve] of commits) resolve({ id, ok: false, failure })
    commits.clear()
    for (const resolve of alives.values()) resolve(failure)
    alives.clear()
    for (const resolve of prunes.values()) resolve({ ok: false, failure })
    prunes.clear()
    if (closed) return
    options.onRestart?.(failure)
    restartTimer = setTimeout(start, restartDelay)
    restartTimer.unref()
    restartDelay = Math.min(restartDelay * 2, maxRestartDelayMs)
  }

  const post = (w: Worker, message: ToWorker) => w.postMessage(message)

  start()
  return {
    commit(events, rejections) {
      const w = worker
      if (!w) return Promise.resolve({ ok: false, failure: lastFailure })
      const id = nextId++
      return new Promise<CommitReply>((resolve) => {
        commits.set(id, resolve)
        post(w, { kind: 'commit', id, events, rejections })
      }).then(resultOf)
    },
    alive(run, at) {
      const w = worker
      if (!w) return Promise.resolve(lastFailure)
      const id = nextId++
      return new Promise((resolve) => {
        alives.set(id, resolve)
        post(w, { kind: 'alive', id, run, at })
      })
    },
    prune(statements) {
      const w = worker
      if (!w) return Promise.resolve({ ok: false, failure: lastFailure })
      const id = nextId++
      return new Promise((resolve) => {
        prunes.set(id, resolve)
        post(w, { kind: 'prune', id, statements })
      })
    },
    async close() {
      closed = true
      if (restartTimer) clearTimeout(restartTimer)
      const w = worker
      if (!w) return
      const exited = new Promise((r) => w.once('exit', r))
      w.ref()
      post(w, { kind: 'close' })
      await exited
    },
  }
}
