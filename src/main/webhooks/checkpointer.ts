/** The checkpointer thread as the commit worker holds it: under the worker supervisor like every
 * other thread (src/main/workers/host.ts), so one that dies is started again with back-off, and a
 * checkpoint asked meanwhile runs in the commit worker instead (prune-steps.ts falls back on a
 * failed reply). Runtime imports carry their `.ts` extension: the commit worker's thread runs this
 * file as TypeScript source under vitest. */
import type { Logger } from '../log.ts'
import { superviseWorker } from '../workers/host.ts'
import type { Supervisor } from '../workers/host.ts'
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

/** The checkpointer on `databaseFile`, its thread started by the first checkpoint asked (a retention
 * pass that removed nothing asks none: most back ends, all that are started and stopped again
 * within minutes, never pay for the thread); null when its module is missing (then retention
 * checkpoints run in the commit worker, and the log says so). */
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
  let thread: Supervisor<CheckpointCalls> | null = null
  let closed = false
  const started = () =>
    (thread ??= superviseWorker<CheckpointCalls, CheckpointWorkerData>({
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
    }))
  return {
    checkpoint(done) {
      // Closed: no thread starts any more; the caller runs the checkpoint itself.
      if (closed) return done({ ok: false, message: 'the checkpointer is closed' })
      void started()
        .call('checkpoint', null)
        .then((reply) => done(reply.ok ? reply.value : { ok: false, message: reply.failure.message }))
    },
    running: () => thread?.running() ?? false,
    close: async () => {
      closed = true
      await thread?.close()
    },
  }
}
