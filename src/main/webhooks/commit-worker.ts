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
import type { CommitRequest, CommitWorkerData, FromWorker, ToWorker } from './commit-protocol.ts'
import { createCommitTransaction } from './commit-transaction.ts'

const port = parentPort as MessagePort
const settings = workerData as CommitWorkerData
const db = new Database(settings.file, { fileMustExist: true })
db.pragma(`busy_timeout = ${Math.max(0, Math.floor(settings.busyTimeoutMs))}`)
db.pragma('journal_mode = WAL')
// FULL: a commit acknowledged to a webhook sender survives a power cut.
db.pragma('synchronous = FULL')
const transaction = createCommitTransaction(db, settings.hooks)

const send = (message: FromWorker) => port.postMessage(message)

function close(): void {
  db.close()
  port.close()
}

port.on('message', (first: ToWorker) => {
  const requests: CommitRequest[] = []
  let closing = false
  const take = (message: ToWorker) => {
    if (message.kind === 'close') closing = true
    else if (message.kind === 'prune')
      send({ kind: 'pruned', id: message.id, reply: transaction.prune(message.statements) })
    else if (message.kind === 'alive')
      send({ kind: 'alive', id: message.id, failure: transaction.alive(message.run, message.at) })
    else requests.push({ ...message, events: message.events.map((e) => ({ ...e, body: asBuffer(e.body) })) })
  }
  take(first)
  for (let next = receiveMessageOnPort(port); next && !closing; next = receiveMessageOnPort(port))
    take(next.message as ToWorker)
  if (requests.length > 0) send({ kind: 'replies', replies: transaction.commit(requests) })
  if (closing) close()
})

/** Structured clone turns a Buffer into a plain Uint8Array; SQLite binds Buffers as blobs. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}
