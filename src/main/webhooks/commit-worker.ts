/** The commit worker: its own connection to the same WAL database, so the listener keeps reading
 * and answering requests while a commit waits for its fsync. Built as its own entry
 * (out/main/commit-worker.js beside index.js and cli.js); under vitest Node runs this file itself.
 *
 * Requests are posted as they come (no waiting for the previous commit): whatever queued up while
 * a transaction ran is taken in one go and committed together, one transaction and one fsync for
 * all, without a round trip through the main thread between commits. */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { performance } from 'node:perf_hooks'
import type {
  CommitRequest,
  CommitWorkerData,
  FromWorker,
  PruneStatement,
  ToWorker,
} from './commit-protocol.ts'
import { createCommitTransaction, pruneRows } from './commit-transaction.ts'

const port = parentPort as MessagePort
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
const pruneCheckpointRows = 600

const send = (message: FromWorker) => port.postMessage(message)

function close(): void {
  const failure = { code: 'CLOSING', message: 'the commit worker is closing' }
  for (const batch of prunes.splice(0)) send({ kind: 'pruned', id: batch.id, reply: { ok: false, failure } })
  db.close()
  port.close()
}

/** Messages taken off the port and not yet handled (taken while a retention step ran). */
const waiting: ToWorker[] = []
/** Retention batches in arrival order; the first one runs in steps whenever nothing else waits. */
const prunes: { id: number; statements: PruneStatement[]; rows: number; changes: number }[] = []
let stepScheduled = false
/** Rows removed since the last checkpoint, and whether one is due. */
let uncheckpointedRows = 0
let checkpointDue = false
let closing = false

/** Takes what waits on the port; true when anything did. */
function takeWaiting(): boolean {
  const before = waiting.length
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port))
    waiting.push(next.message as ToWorker)
  return waiting.length > before
}

/** Everything waiting, commits taken together in one transaction. Retention batches are only
 * queued here: they run afterwards, in steps, when nothing else waits. */
function serve(): void {
  takeWaiting()
  const requests: CommitRequest[] = []
  for (const message of waiting.splice(0, waiting.length)) {
    if (closing) break
    if (message.kind === 'close') closing = true
    else if (message.kind === 'prune')
      prunes.push({ ...message, rows: pruneRows(message.statements), changes: 0 })
    else if (message.kind === 'alive')
      send({ kind: 'alive', id: message.id, failure: transaction.alive(message.run, message.at) })
    else {
      // The message is this thread's own copy: its bodies are made Buffers in place, not copied.
      for (const e of message.events) e.body = asBuffer(e.body)
      requests.push(message)
    }
  }
  if (requests.length > 0) send({ kind: 'replies', replies: transaction.commit(requests) })
  if (closing) return close()
  if ((prunes.length > 0 || checkpointDue) && !stepScheduled) {
    stepScheduled = true
    // After the event loop has delivered what came meanwhile: a commit always goes first.
    setImmediate(pruneStep)
  }
}

/** One step of the first retention batch: its own transaction, ended after `pruneStepMs` or
 * `pruneStepRows`, or as soon as another message waits, so a commit posted during a long retention
 * run waits for at most one chunk and one small COMMIT (or one small checkpoint), never for the
 * whole batch. Steps alternate with passive checkpoints; a commit goes before either. */
function pruneStep(): void {
  stepScheduled = false
  const batch = prunes[0]
  if (closing) return
  if (takeWaiting()) return serve()
  if (checkpointDue) {
    checkpointDue = false
    uncheckpointedRows = 0
    try {
      db.pragma('wal_checkpoint(PASSIVE)')
    } catch {
      // Not done now: the automatic checkpoint after a later commit does it.
    }
    return serve()
  }
  if (batch) {
    const started = performance.now()
    const done = transaction.pruneStep(
      batch.statements,
      Math.min(pruneStepRows, batch.rows - batch.changes),
      () => performance.now() - started >= pruneStepMs || takeWaiting(),
    )
    const ended = !done.ok || done.exhausted || batch.changes + done.changes >= batch.rows
    if (done.ok) uncheckpointedRows += done.changes
    checkpointDue = uncheckpointedRows >= pruneCheckpointRows || (ended && uncheckpointedRows > 0)
    if (ended) {
      prunes.shift()
      send({
        kind: 'pruned',
        id: batch.id,
        reply: done.ok ? { ok: true, changes: batch.changes + done.changes } : done,
      })
    } else batch.changes += done.changes
  }
  serve()
}

port.on('message', (first: ToWorker) => {
  waiting.push(first)
  serve()
})

/** Structured clone turns a Buffer into a plain Uint8Array; SQLite binds Buffers as blobs. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
