/** The checkpointer: a thread with its own connection to the commit worker's database that runs
 * passive checkpoints when the commit worker asks (while retention runs: src/main/webhooks/
 * prune-steps.ts). A passive checkpoint copies what the WAL holds into the database file and
 * fsyncs it without blocking the commit worker's writes, so no delivery waits behind it. Started
 * by the commit worker (out/main/checkpoint-worker.js beside commit-worker.js; under vitest Node
 * runs this file itself). Messages: 'checkpoint' → a CheckpointReply when it ran; 'close' → the thread ends. */
import { parentPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import Database from 'better-sqlite3'

export interface CheckpointWorkerData {
  file: string
}

/** `walPages`: the WAL's length in pages when the checkpoint ran (how far the WAL grew);
 * `complete`: every page of it is in the database file now, so the next write starts the WAL from
 * its beginning again (false when commits came meanwhile, or a reader holds an older snapshot). */
export type CheckpointReply =
  { ok: true; walPages: number; complete: boolean } | { ok: false; message: string }

const port = parentPort as MessagePort
const db = new Database((workerData as CheckpointWorkerData).file, { fileMustExist: true })
// The checkpoint fsyncs the WAL before it copies and the database file after (as the commit
// worker's own checkpoints did).
db.pragma('synchronous = FULL')

port.on('message', (message: 'checkpoint' | 'close') => {
  if (message === 'close') {
    db.close()
    port.close()
    return
  }
  let reply: CheckpointReply
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as {
      busy: number
      log: number
      checkpointed: number
    }[]
    reply = {
      ok: true,
      walPages: result?.log ?? 0,
      complete: result !== undefined && result.busy === 0 && result.checkpointed === result.log,
    }
  } catch (error) {
    reply = { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
  port.postMessage(reply)
})
