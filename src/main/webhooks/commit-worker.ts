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
import type { CommitCalls, CommitWorkerData } from './commit-protocol.ts'
import { createCommitTransaction } from './commit-transaction.ts'
import { unpackEvents } from './commit-wire.ts'
import { createPruneSteps } from './prune-steps.ts'
import { superviseCheckpointer } from './checkpointer.ts'
import type { SupervisedCheckpointer } from './checkpointer.ts'
import { commitTraceFromEnv } from './commit-trace.ts'

const settings = workerData as CommitWorkerData
const db = new Database(settings.file, { fileMustExist: true })
db.pragma(`busy_timeout = ${Math.max(0, Math.floor(settings.busyTimeoutMs))}`)
db.pragma('journal_mode = WAL')
// FULL: a commit acknowledged to a webhook sender survives a power cut.
db.pragma('synchronous = FULL')
const transaction = createCommitTransaction(db, settings.hooks)
/** Only under bench/retention.ts (WATCHDESK_COMMIT_TRACE names the file it reads). */
const commitTrace = commitTraceFromEnv()

/** Retention batches in steps between commits; their checkpoints on the checkpointer's thread. */
const prunes = createPruneSteps({
  db,
  transaction,
  // The checkpointer (./checkpointer.ts), made on the first retention step; its thread starts with
  // the first checkpoint a step makes due (none when a pass removes nothing).
  checkpointer: () =>
    checkpointer === undefined
      ? (checkpointer = superviseCheckpointer(settings.file, served.log))
      : checkpointer,
  wake: () => served.wake(),
  ...commitTrace?.pruneHooks,
})
let checkpointer: SupervisedCheckpointer | null | undefined

const served = serveWorker<CommitCalls>({
  handlers: {
    alive: ({ run, at }) => transaction.alive(run, at),
    // Queued: answered when its last step ran (between commits, never before one).
    prune: (statements) => prunes.add(statements),
  },
  batched: {
    commit: (packed) => {
      const requests = packed.map((r, id) => ({
        id,
        events: unpackEvents(r.events),
        rejections: r.rejections,
      }))
      const started = performance.now()
      const replies = transaction.commit(requests)
      commitTrace?.commit(started, requests)
      return replies
    },
  },
  batchIntervalMs: settings.batchIntervalMs,
  background: { pending: prunes.pending, step: prunes.step },
  onClose: async () => {
    prunes.fail({ code: 'CLOSING', message: 'the commit worker is closing' })
    await checkpointer?.close()
    db.close()
    commitTrace?.save(prunes.counts())
  },
})
