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
// keeps reading and answering requests while a commit waits for its fsync. Kept as source text:
// it runs the same under vitest, the bundled CLI and Electron, with no extra build entry.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.sqlite)
const db = new Database(workerData.file)
db.pragma('busy_timeout = 5000')
db.pragma('journal_mode = WAL')
db.pragma('synchronous = FULL')
const upsert = db.prepare(workerData.upsertSql)
const insertRejection = db.prepare(workerData.insertRejectionSql)
const trim = db.prepare(workerData.trimRejectionsSql)
const commit = db.transaction((events, rejections) => {
  const rows = events.map((e) => upsert.get({ ...e, body: Buffer.from(e.body.buffer, e.body.byteOffset, e.body.byteLength) }))
  for (const r of rejections) insertRejection.run(r)
  if (rejections.length > 0) trim.run()
  return rows
})
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close()
    parentPort.close()
    return
  }
  try {
    parentPort.postMessage({ id: message.id, rows: commit.immediate(message.events, message.rejections) })
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: String((error && error.message) || error) })
  }
})
`

/** Commits in a worker thread. At most one batch is in flight; Ingest groups what arrives meanwhile. */
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
  worker.on('message', (message: { id: number; rows?: EventRow[]; error?: string }) => {
    const w = waiting.get(message.id)
    if (!w) return
    waiting.delete(message.id)
    if (message.error !== undefined) w.reject(new Error(message.error))
    else w.resolve(message.rows!.map(toSummary))
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
