import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { EventSummary, Rejection } from '../../shared/contract/events'
import type { EventStore, EventRow, IncomingEvent } from './store'
import { eventParams, insertRejectionSql, toSummary, trimRejectionsSql, upsertEventSql } from './store'

/** Writes a batch of deliveries (and rejections) in one transaction with one fsync. */
export interface Committer {
  commit(events: IncomingEvent[], rejections: Rejection[]): Promise<EventSummary[]>
  close(): Promise<void>
}

/** In this thread: simple, but the fsync blocks the event loop (tests, tools). */
export function inThreadCommitter(store: EventStore): Committer {
  return {
    commit: async (events, rejections) => store.commit(events, rejections),
    close: async () => {},
  }
}

// Runs in a worker thread with its own connection to the same WAL database, so the listener
// keeps reading and answering requests while a commit waits for its fsync. Batches are posted as
// they come (no waiting for the previous commit): whatever queued up while a transaction ran is
// taken in one go and committed together, one transaction and one fsync for all, without a round
// trip through the main thread between commits. Kept as source text: it runs the same under
// vitest, the bundled CLI and Electron, with no extra build entry.
const workerSource = `
const { parentPort, receiveMessageOnPort, workerData } = require('node:worker_threads')
const Database = require(workerData.sqlite)
const db = new Database(workerData.file)
db.pragma('busy_timeout = 5000')
db.pragma('journal_mode = WAL')
db.pragma('synchronous = FULL')
const upsert = db.prepare(workerData.upsertSql)
const insertRejection = db.prepare(workerData.insertRejectionSql)
const trim = db.prepare(workerData.trimRejectionsSql)
const commit = db.transaction((batches) => {
  const rows = []
  let rejected = 0
  for (const batch of batches) {
    for (const e of batch.events)
      rows.push(upsert.get({ ...e, body: Buffer.from(e.body.buffer, e.body.byteOffset, e.body.byteLength) }))
    for (const r of batch.rejections) insertRejection.run(r)
    rejected += batch.rejections.length
  }
  if (rejected > 0) trim.run()
  return rows
})
const close = () => {
  db.close()
  parentPort.close()
}
parentPort.on('message', (first) => {
  if (first === 'close') return close()
  const batches = [first]
  let closing = false
  for (let next = receiveMessageOnPort(parentPort); next; next = receiveMessageOnPort(parentPort)) {
    if (next.message === 'close') {
      closing = true
      break
    }
    batches.push(next.message)
  }
  let replies
  try {
    const rows = commit.immediate(batches)
    let at = 0
    replies = batches.map((b) => ({ id: b.id, rows: rows.slice(at, (at += b.events.length)) }))
  } catch (error) {
    const message = String((error && error.message) || error)
    replies = batches.map((b) => ({ id: b.id, error: message }))
  }
  parentPort.postMessage(replies)
  if (closing) close()
})
`

/** Commits in a worker thread; batches may be posted while earlier ones are still committing. */
export function workerCommitter(file: string): Committer {
  const sqlite = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(workerSource, {
    eval: true,
    workerData: { sqlite, file, upsertSql: upsertEventSql, insertRejectionSql, trimRejectionsSql },
  })
  worker.unref()
  const waiting = new Map<number, { resolve(rows: EventSummary[]): void; reject(error: Error): void }>()
  let nextId = 1
  let failure: Error | null = null
  const failAll = (error: Error) => {
    failure = error
    for (const w of waiting.values()) w.reject(error)
    waiting.clear()
  }
  worker.on('message', (replies: { id: number; rows?: EventRow[]; error?: string }[]) => {
    for (const reply of replies) {
      const w = waiting.get(reply.id)
      if (!w) continue
      waiting.delete(reply.id)
      if (reply.error !== undefined) w.reject(new Error(reply.error))
      else w.resolve(reply.rows!.map(toSummary))
    }
  })
  worker.on('error', (error) => failAll(error))
  worker.on('exit', () => failAll(new Error('the commit worker stopped')))
  return {
    commit(events, rejections) {
      if (failure) return Promise.reject(failure)
      const id = nextId++
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject })
        worker.postMessage({ id, events: events.map(eventParams), rejections })
      })
    },
    async close() {
      if (failure) return
      const exited = new Promise((r) => worker.once('exit', r))
      // Unreferenced while idle so it never keeps the process up; referenced while closing, or a
      // process with nothing else left to do would exit before the last commit is flushed.
      worker.ref()
      worker.postMessage('close')
      await exited
    },
  }
}
