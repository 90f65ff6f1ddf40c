/** The commit worker: its own connection to the same WAL database, so the listener keeps reading
 * and answering requests while a commit waits for its fsync. Built as its own entry
 * (out/main/commit-worker.js beside index.js and cli.js); under vitest Node runs this file itself.
 *
 * Requests are posted as they come (no waiting for the previous commit): whatever queued up while
 * a transaction ran is taken in one go and committed together, one transaction and one fsync for
 * all, without a round trip through the main thread between commits (serveWorker's batched calls).
 * Retention batches run in steps when no commit waits (serveWorker's background work). */
import { workerData } from 'node:worker_threads'
import { performance } from 'node:perf_hooks'
import Database from 'better-sqlite3'
import { serveWorker } from '../workers/serve.ts'
import type { CommitCalls, CommitWorkerData, PruneReply, PruneStatement } from './commit-protocol.ts'
import { createCommitTransaction, pruneRows } from './commit-transaction.ts'

const settings = workerData as CommitWorkerData
const db = new Database(settings.file, { fileMustExist: true })
db.pragma(`busy_timeout = ${Math.max(0, Math.floor(settings.busyTimeoutMs))}`)
db.pragma('journal_mode = WAL')
// FULL: a commit acknowledged to a webhook sender survives a power cut.
db.pragma('synchronous = FULL')
const transaction = createCommitTransaction(db, settings.hooks)

/** A retention step ends after this long or this many rows, whichever comes first, when no commit
 * comes: its COMMIT then writes a few dozen pages, so a delivery that arrives meanwhile waits about
 * as long as one commit of its own (bench/retention.ts). */
const pruneStepMs = 2
const pruneStepRows = 200
/** Steps' pages go into the database file by a passive checkpoint after this many rows (and at the
 * end of a batch), a few hundred pages at a time: one fsync of the database file per checkpoint,
 * rather than the automatic checkpoint of 1,000 pages that the commit crossing the mark pays for. */
const pruneCheckpointRows = 300

/** Retention batches in arrival order; the first one runs in steps whenever nothing else waits. */
const prunes: {
  statements: PruneStatement[]
  rows: number
  changes: number
  answer: (reply: PruneReply) => void
}[] = []
/** Rows removed since the last checkpoint, and whether one is due. */
let uncheckpointedRows = 0
let checkpointDue = false

/** One step of the first retention batch: its own transaction, ended after `pruneStepMs` or
 * `pruneStepRows`, or as soon as a call waits, so a commit posted during a long retention run
 * waits for at most one chunk and one small COMMIT (or one small checkpoint), never for the whole
 * batch. Steps alternate with passive checkpoints; a commit goes before either. */
function pruneStep(interrupted: () => boolean): void {
  if (checkpointDue) {
    checkpointDue = false
    uncheckpointedRows = 0
    try {
      db.pragma('wal_checkpoint(PASSIVE)')
    } catch {
      // Not done now: the automatic checkpoint after a later commit does it.
    }
    return
  }
  const batch = prunes[0]
  if (!batch) return
  const started = performance.now()
  const done = transaction.pruneStep(
    batch.statements,
    Math.min(pruneStepRows, batch.rows - batch.changes),
    () => performance.now() - started >= pruneStepMs || interrupted(),
  )
  const ended = !done.ok || done.exhausted || batch.changes + done.changes >= batch.rows
  if (done.ok) uncheckpointedRows += done.changes
  checkpointDue = uncheckpointedRows >= pruneCheckpointRows || (ended && uncheckpointedRows > 0)
  if (ended) {
    prunes.shift()
    batch.answer(done.ok ? { ok: true, changes: batch.changes + done.changes } : done)
  } else batch.changes += done.changes
}

serveWorker<CommitCalls>({
  handlers: {
    alive: ({ run, at }) => transaction.alive(run, at),
    // Queued: answered when its last step ran (between commits, never before one).
    prune: (statements) =>
      new Promise<PruneReply>((answer) =>
        prunes.push({ statements, rows: pruneRows(statements), changes: 0, answer }),
      ),
  },
  batched: {
    commit: (requests) => {
      // Each request is this thread's own copy: its bodies are made Buffers in place, not copied.
      for (const r of requests) for (const e of r.events) e.body = asBuffer(e.body)
      return transaction.commit(requests.map((r, id) => ({ id, ...r })))
    },
  },
  batchIntervalMs: settings.batchIntervalMs,
  background: { pending: () => prunes.length > 0 || checkpointDue, step: pruneStep },
  onClose: () => {
    const failure = { code: 'CLOSING', message: 'the commit worker is closing' }
    for (const batch of prunes.splice(0)) batch.answer({ ok: false, failure })
    db.close()
  },
})

/** Structured clone turns a Buffer into a plain Uint8Array; SQLite binds Buffers as blobs. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
