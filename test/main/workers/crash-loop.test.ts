import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { superviseWorker } from '../../../src/main/workers'
import type { Supervisor, WorkerHealth } from '../../../src/main/workers'
import { waitFor } from '../../support/wait'
import type { EchoCalls, EchoEvent } from './echo-protocol'

const file = fileURLToPath(new URL('./echo-worker.ts', import.meta.url))

const open: Supervisor<EchoCalls>[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((w) => w.close()))
})

/** Every queue's worker (forward, commit) runs under this supervisor: a worker that dies more than
 * a few times within the window is a crash loop, said once when it starts and once when it ends. */
describe('a supervised worker that keeps dying', () => {
  it('is a crash loop after more restarts than allowed in the window, with the cause, and no longer once a window passed without one', async () => {
    const told: WorkerHealth[] = []
    // The window's clock is the test's: how long a worker takes to start on a loaded machine does
    // not decide what falls in the window.
    let now = 1_000_000
    const worker = superviseWorker<EchoCalls, { start: number }, EchoEvent>({
      name: 'echo worker',
      file,
      data: () => ({ start: 1 }),
      firstRestartDelayMs: 10,
      maxRestartDelayMs: 20,
      crashLoop: { restarts: 2, windowMs: 60_000 },
      onHealth: (h) => told.push(h),
      now: () => now,
    })
    open.push(worker)
    for (let i = 1; i <= 2; i++) {
      await worker.call('crash', undefined as never)
      await waitFor(() => worker.running(), 'the worker started again')
      now += 1_000
    }
    // Two restarts: as many as allowed, not yet a loop.
    expect(worker.health()).toMatchObject({ crashLoop: false, restarts: 2 })
    expect(told).toEqual([])
    await worker.call('crash', undefined as never)
    expect(worker.health()).toMatchObject({
      crashLoop: true,
      restarts: 3,
      lastFailure: { code: 'WORKER_EXIT', message: 'the echo worker stopped (exit code 7)' },
    })
    expect(told).toHaveLength(1)
    expect(told[0]).toMatchObject({ crashLoop: true, restarts: 3 })
    await waitFor(() => worker.running(), 'the worker started again')
    // A whole window without a restart: no longer a loop.
    now += 60_000
    expect(worker.health()).toMatchObject({ crashLoop: false, restarts: 0 })
    expect((await worker.call('echo', 'hi')).ok).toBe(true)
  })
})
