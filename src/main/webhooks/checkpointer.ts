/** The checkpointer thread as the commit worker holds it: under the worker supervisor like every
 * other thread (src/main/workers/host.ts), so one that dies is started again with back-off, and a
 * checkpoint asked meanwhile runs in the commit worker instead (prune-steps.ts falls back on a
 * failed reply). Runtime imports carry their `.ts` extension: the commit worker's thread runs this
 * file as TypeScript source under vitest. */
import type { Logger } from '../log.ts'
import { superviseWorker } from '../workers/host.ts'
import { workerFile } from '../workers/file.ts'
import type { CheckpointCalls, CheckpointWorkerData } from './checkpoint-protocol.ts'
import type { Checkpointer } from './prune-steps.ts'

export type SupervisedCheckpointer = Checkpointer & {
  /** Whether its thread runs now (tests). */
  running(): boolean
  close(): Promise<void>
}

/** out/main/checkpoint-worker.js beside the commit worker, or the source beside this file. */
export function checkpointWorkerFile(): string | null {
  return workerFile(import.meta.url, 'checkpoint-worker.js', 'checkpoint-worker.ts')
}

/** Starts the checkpointer's thread on `databaseFile`; null when its module is missing (then
 * retention checkpoints run in the commit worker, and the log says so). */
export function superviseCheckpointer(
  databaseFile: string,
  log: Logger,
  file: string | null = checkpointWorkerFile(),
): SupervisedCheckpointer | null {
  if (!file) {
    log.warn(
      'checkpoint-worker.js is missing beside the commit worker: retention checkpoints run in the commit worker',
    )
    return null
  }
  const thread = superviseWorker<CheckpointCalls, CheckpointWorkerData>({
    name: 'checkpointer thread',
    file,
    data: () => ({ file: databaseFile }),
    log,
    onRestart: (failure, delayMs) =>
      log.warn(
        'the checkpointer thread stopped: it starts again, checkpoints meanwhile run in the commit worker',
        {
          why: failure.message,
          delayMs,
        },
      ),
  })
  return {
    checkpoint(done) {
      void thread
        .call('checkpoint', null)
        .then((reply) => done(reply.ok ? reply.value : { ok: false, message: reply.failure.message }))
    },
    running: () => thread.running(),
    close: () => thread.close(),
  }
}
