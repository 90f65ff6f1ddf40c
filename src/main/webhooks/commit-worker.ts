/** The commit worker: its own connection to the same WAL database, so the listener keeps reading
 * and answering requests while a commit waits for its fsync. Built as its own entry
 * (out/main/commit-worker.js beside index.js and cli.js); under vitest Node runs this file itself.
 *
 * Requests are posted as they come (no waiting for the previous commit): whatever queued up while
 * a transaction ran is taken in one go and committed together, one transaction and one fsync for
 * all, without a round trip through the main thread between commits (serveWorker's batched calls). */
import { workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { serveWorker } from '../workers/serve.ts'
import type { CommitCalls, CommitWorkerData } from './commit-protocol.ts'
import { createCommitTransaction } from './commit-transaction.ts'

const settings = workerData as CommitWorkerData
const db = new Database(settings.file, { fileMustExist: true })
db.pragma(`busy_timeout = ${Math.max(0, Math.floor(settings.busyTimeoutMs))}`)
db.pragma('journal_mode = WAL')
// FULL: a commit acknowledged to a webhook sender survives a power cut.
db.pragma('synchronous = FULL')
const transaction = createCommitTransaction(db, settings.hooks)

serveWorker<CommitCalls>({
  handlers: {
    prune: (statements) => transaction.prune(statements),
    alive: ({ run, at }) => transaction.alive(run, at),
  },
  batched: {
    commit: (requests) => {
      // Each request is this thread's own copy: its bodies are made Buffers in place, not copied.
      for (const r of requests) for (const e of r.events) e.body = asBuffer(e.body)
      return transaction.commit(requests.map((r, id) => ({ id, ...r })))
    },
  },
  onClose: () => void db.close(),
})

/** Structured clone turns a Buffer into a plain Uint8Array; SQLite binds Buffers as blobs. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
