/** The commit worker's retention batches, run in steps between commits (serveWorker's background
 * work). Runtime imports carry their `.ts` extension: the worker runs this file directly under
 * vitest (Node strips the types).
 *
 * What a delivery can find in front of it in the commit worker while retention runs: one chunk of
 * a step (`pruneChunkRows` rows) and a step's COMMIT, never a checkpoint. The checkpoints that
 * move the steps' pages into the database file run on another thread with its own connection (a
 * passive checkpoint there does not block this connection's writes), and this connection's
 * automatic checkpoint is held back meanwhile, so a delivery's commit does not run one either
 * (bench/retention.ts prints what slow deliveries waited behind). */
import type { Database } from 'better-sqlite3'
import { performance } from 'node:perf_hooks'
import type { PruneReply, PruneStatement } from './commit-protocol.ts'
import type { CommitTransaction } from './commit-transaction.ts'
import type { CheckpointReply } from './checkpoint-protocol.ts'
import { pruneRows } from './commit-transaction.ts'

/** A step ends after this long or this many rows, whichever comes first, when no commit comes:
 * its COMMIT then writes a few dozen pages (bench/retention.ts). */
export const pruneStepMs = 2
export const pruneStepRows = 200
/** The steps' pages go into the database file by a passive checkpoint after this many rows (and
 * at a batch's end), a few hundred pages at a time. */
export const pruneCheckpointRows = Number(process.env.RET_CKPT_ROWS ?? 300)
/** While retention runs, the commit worker's automatic checkpoint waits for this many WAL pages
 * instead of 1,000: the checkpointer keeps the WAL far below it (a few thousand pages at most in
 * bench/retention.ts), so no delivery's commit runs a checkpoint; it is only a backstop should a
 * stream of commits keep the steps, and so their checkpoints, from running for long. */
export const retentionAutocheckpointPages = 10_000
/** How many more checkpoints at most, when retention is idle and the last one did not complete,
 * before the automatic checkpoint comes back anyway. */
export const maxFinalCheckpoints = 5

/** Another thread's connection to the same database that runs passive checkpoints on request
 * (src/main/webhooks/checkpoint-worker.ts): `checkpoint(done)` calls `done` once the checkpoint
 * ran, or failed (`ok` false: the thread is gone, and checkpoints run in this thread again). */
export interface Checkpointer {
  checkpoint(done: (reply: CheckpointReply) => void): void
}

/** What the steps did, counted (tests and the bench; nothing reads them to decide). */
export interface PruneStepCounts {
  steps: number
  /** Passive checkpoints run on the commit worker's own connection (only without a checkpointer). */
  checkpointsHere: number
  /** Passive checkpoints asked of the checkpointer thread. */
  checkpointsElsewhere: number
  /** The longest the WAL was (pages) when the checkpointer ran. */
  walPagesMax: number
}

export interface PruneSteps {
  /** Queues a retention batch; answered when its last step ran. */
  add(statements: PruneStatement[]): Promise<PruneReply>
  /** Whether a step is due now (false while a checkpoint runs on the other thread). */
  pending(): boolean
  /** One step; ends early once `interrupted()` says a call waits. */
  step(interrupted: () => boolean): void
  /** Fails every queued batch (the worker closes). */
  fail(failure: { code: string; message: string }): void
  counts(): PruneStepCounts
}

export interface PruneStepsOptions {
  db: Database
  transaction: CommitTransaction
  /** The checkpointer thread, started on first use; null: none (checkpoints run here). */
  checkpointer: () => Checkpointer | null
  /** A checkpoint on the other thread finished: a step may be due again (serveWorker's wake). */
  wake: () => void
  /** Optional trace of each step (bench/retention.ts). */
  onStep?: (started: number, lastChunk: number, ended: number, rows: number) => void
  onCheckpoint?: (started: number, ended: number) => void
}

export function createPruneSteps(options: PruneStepsOptions): PruneSteps {
  const { db, transaction } = options
  const batches: {
    statements: PruneStatement[]
    rows: number
    changes: number
    answer: (reply: PruneReply) => void
  }[] = []
  const counts: PruneStepCounts = { steps: 0, checkpointsHere: 0, checkpointsElsewhere: 0, walPagesMax: 0 }
  /** Rows removed since the last checkpoint, whether one is due, and whether one runs elsewhere. */
  let uncheckpointedRows = 0
  let checkpointDue = false
  let checkpointRunning = false
  /** Checkpoints asked again at the end because the last one did not complete. */
  let finalCheckpoints = 0
  /** This connection's automatic checkpoint, as it was before retention turned it off. */
  let automatic: number | null = null

  const automaticOff = () => {
    if (automatic !== null) return
    automatic = db.pragma('wal_autocheckpoint', { simple: true }) as number
    db.pragma(`wal_autocheckpoint = ${retentionAutocheckpointPages}`)
  }
  /** Back on once retention is idle: nothing queued, due or running. */
  const automaticBack = () => {
    if (automatic === null || batches.length > 0 || checkpointDue || checkpointRunning) return
    db.pragma(`wal_autocheckpoint = ${automatic}`)
    automatic = null
    finalCheckpoints = 0
  }

  function checkpointHere(): void {
    counts.checkpointsHere++
    const started = performance.now()
    try {
      db.pragma('wal_checkpoint(PASSIVE)')
    } catch {
      // Not done now: the automatic checkpoint after a later commit does it.
    }
    options.onCheckpoint?.(started, performance.now())
  }

  function checkpoint(): void {
    checkpointDue = false
    uncheckpointedRows = 0
    const elsewhere = options.checkpointer()
    if (!elsewhere) {
      checkpointHere()
      automaticBack()
      return
    }
    counts.checkpointsElsewhere++
    // No step until it is done: the checkpoint then catches up with the steps' pages, and the
    // next writer can start the WAL from its beginning again rather than let it grow.
    checkpointRunning = true
    elsewhere.checkpoint((reply) => {
      checkpointRunning = false
      if (!reply.ok) checkpointHere()
      else {
        counts.walPagesMax = Math.max(counts.walPagesMax, reply.walPages)
        // The automatic checkpoint comes back only over a WAL that starts again from its
        // beginning: over a longer one the next delivery's commit would run a checkpoint. So
        // once more (a few times at most: a reader's snapshot may hold it) when this one was
        // the last and did not catch up.
        if (reply.complete || batches.length > 0) finalCheckpoints = 0
        else if (++finalCheckpoints <= maxFinalCheckpoints) checkpointDue = true
      }
      automaticBack()
      options.wake()
    })
  }

  function step(interrupted: () => boolean): void {
    if (checkpointRunning) return
    if (checkpointDue) return checkpoint()
    const batch = batches[0]
    if (!batch) return
    const elsewhere = options.checkpointer() !== null
    // Turned off before the step's COMMIT, which is this connection's first write of the run.
    if (elsewhere) automaticOff()
    counts.steps++
    const started = performance.now()
    let lastChunk = started
    // The step's COMMIT keeps its own fsync: left to the next delivery's (synchronous=NORMAL
    // here) the delivery's fsync carried the step's pages, and its p99 rose more than the wait
    // behind a step's COMMIT costs (bench/retention.ts, docs/benchmarks.md).
    const done = transaction.pruneStep(
      batch.statements,
      Math.min(pruneStepRows, batch.rows - batch.changes),
      () => {
        lastChunk = performance.now()
        return lastChunk - started >= pruneStepMs || interrupted()
      },
    )
    options.onStep?.(started, lastChunk, performance.now(), done.ok ? done.changes : 0)
    const ended = !done.ok || done.exhausted || batch.changes + done.changes >= batch.rows
    if (done.ok) uncheckpointedRows += done.changes
    checkpointDue = uncheckpointedRows >= pruneCheckpointRows || (ended && uncheckpointedRows > 0)
    if (ended) {
      batches.shift()
      batch.answer(done.ok ? { ok: true, changes: batch.changes + done.changes } : done)
      automaticBack()
    } else batch.changes += done.changes
  }

  return {
    add: (statements) =>
      new Promise<PruneReply>((answer) =>
        batches.push({ statements, rows: pruneRows(statements), changes: 0, answer }),
      ),
    pending: () => !checkpointRunning && (batches.length > 0 || checkpointDue),
    step,
    fail(failure) {
      for (const batch of batches.splice(0)) batch.answer({ ok: false, failure })
    },
    counts: () => ({ ...counts }),
  }
}
