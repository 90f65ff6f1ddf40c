/** The checkpointer: a thread with its own connection to the commit worker's database that runs
 * passive checkpoints when the commit worker asks (while retention runs: src/main/webhooks/
 * prune-steps.ts). A passive checkpoint copies what the WAL holds into the database file and
 * fsyncs it without blocking the commit worker's writes, so no delivery waits behind it. Started
 * by the commit worker under the worker supervisor (./checkpointer.ts; out/main/checkpoint-worker.js
 * beside commit-worker.js; under vitest Node runs this file itself). */
import { workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { serveWorker } from '../workers/serve.ts'
import type { CheckpointCalls, CheckpointReply, CheckpointWorkerData } from './checkpoint-protocol.ts'

export type { CheckpointReply, CheckpointWorkerData } from './checkpoint-protocol.ts'

const db = new Database((workerData as CheckpointWorkerData).file, { fileMustExist: true })
// The checkpoint fsyncs the WAL before it copies and the database file after (as the commit
// worker's own checkpoints did).
db.pragma('synchronous = FULL')

function checkpoint(): CheckpointReply {
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)') as {
      busy: number
      log: number
      checkpointed: number
    }[]
    return {
      ok: true,
      walPages: result?.log ?? 0,
      complete: result !== undefined && result.busy === 0 && result.checkpointed === result.log,
    }
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) }
  }
}

serveWorker<CheckpointCalls>({
  handlers: { checkpoint },
  onClose: () => {
    db.close()
  },
})
