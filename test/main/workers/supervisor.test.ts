import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../../src/main/log'
import type { Logger } from '../../../src/main/log'
import { superviseWorker } from '../../../src/main/workers'
import type { Supervisor } from '../../../src/main/workers'
import { batchDelay } from '../../../src/main/workers/serve'
import { waitFor } from '../../support/wait'
import type { EchoCalls, EchoEvent } from './echo-protocol'

const file = fileURLToPath(new URL('./echo-worker.ts', import.meta.url))

type Line = { level: string; msg: string; fields: Record<string, unknown> }
function recordingLogger(): { log: Logger; lines: Line[] } {
  const lines: Line[] = []
  const log = createLogger((line) => {
    const { level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>
    lines.push({ level: String(level), msg: String(msg), fields })
  }, 'info')
  return { log, lines }
}

const open: Supervisor<EchoCalls>[] = []
afterEach(async () => {
  await Promise.all(open.splice(0).map((w) => w.close()))
})

function start(
  extra: Partial<Parameters<typeof superviseWorker<EchoCalls, { start: number }, EchoEvent>>[0]> = {},
) {
  let starts = 0
  const recorded = recordingLogger()
  const events: EchoEvent[] = []
  const restarts: { code: string | null; delayMs: number }[] = []
  const worker = superviseWorker<EchoCalls, { start: number }, EchoEvent>({
    name: 'echo worker',
    file,
    data: () => ({ start: ++starts }),
    log: recorded.log,
    onEvent: (e) => events.push(e),
    onRestart: (failure, delayMs) => restarts.push({ code: failure.code, delayMs }),
    firstRestartDelayMs: 20,
    maxRestartDelayMs: 80,
    ...extra,
  })
  open.push(worker)
  return { worker, lines: recorded.lines, events, restarts, starts: () => starts }
}

describe('supervised worker', () => {
  it('matches each reply to its call, however the answers interleave', async () => {
    const { worker } = start()
    const slow = worker.call('wait', 60)
    const fast = worker.call('echo', 'hello')
    expect(await fast).toEqual({ ok: true, value: 'hello (start 1)' })
    expect(await slow).toEqual({ ok: true, value: 60 })
  })

  it('hands calls of a batched method that queued up to the worker together', async () => {
    const { worker } = start()
    const sums = await Promise.all([1, 2, 3].map((n) => worker.call('add', n)))
    // Posted in one tick, the three are drained together: each got 3 × 1000 added.
    expect(sums).toEqual([1, 2, 3].map((n) => ({ ok: true, value: n + 3000 })))
  })

  it('joins batched calls that come soon after a batch started into the next one (group commit)', async () => {
    const { worker } = start({ data: () => ({ start: 1, batchIntervalMs: 1_000 }) })
    // The first call after a quiet spell goes at once, alone.
    expect(await worker.call('add', 1)).toEqual({ ok: true, value: 1001 })
    // Posted 50 ms apart, time enough for each to start a batch of its own (the spacing is the
    // input here, not a wait for a condition): paced, all three wait for the interval and go
    // together; unpaced, each goes alone (+1000).
    const spaced = () => new Promise((r) => setTimeout(r, 50))
    const first = worker.call('add', 10)
    await spaced()
    const second = worker.call('add', 20)
    await spaced()
    const third = worker.call('add', 30)
    expect(await Promise.all([first, second, third])).toEqual(
      [10, 20, 30].map((n) => ({ ok: true, value: n + 3000 })),
    )
  })

  it('starts a batch no sooner than the interval after the previous one, and at once after a quiet spell', () => {
    expect(batchDelay(0, 300, 1_000)).toBe(700)
    expect(batchDelay(0, 1_500, 1_000)).toBe(0)
    expect(batchDelay(-Infinity, 5, 1_000)).toBe(0)
    expect(batchDelay(100, 100, 0)).toBe(0)
  })

  it('answers a call that throws in the worker with a failure value carrying its code', async () => {
    const { worker } = start()
    expect(await worker.call('fail', 'the disk is full')).toEqual({
      ok: false,
      failure: { code: 'SQLITE_FULL', message: 'the disk is full' },
    })
    expect(await worker.call('echo', 'still here')).toEqual({ ok: true, value: 'still here (start 1)' })
  })

  it('answers pending calls with a failure when the worker dies, and starts it again with growing back-off', async () => {
    const { worker, restarts, starts } = start()
    const pending = worker.call('wait', 10_000)
    expect(await worker.call('crash', undefined as never)).toEqual({
      ok: false,
      failure: { code: 'WORKER_EXIT', message: 'the echo worker stopped (exit code 7)' },
    })
    expect(await pending).toMatchObject({ ok: false, failure: { code: 'WORKER_EXIT' } })
    // Down meanwhile: a call is answered at once with the reason, never left hanging.
    expect(await worker.call('echo', 'while down')).toMatchObject({
      ok: false,
      failure: { code: 'WORKER_EXIT' },
    })
    await waitFor(() => worker.running(), 'the restarted worker')
    expect(await worker.call('echo', 'back')).toEqual({ ok: true, value: 'back (start 2)' })
    // The answer reset the back-off; crashes with no answer in between double it, up to the cap.
    for (let i = 0; i < 3; i++) {
      await worker.call('crash', undefined as never)
      await waitFor(() => worker.running(), `start ${i + 3}`)
    }
    expect(restarts.map((r) => r.delayMs)).toEqual([20, 20, 40, 80])
    expect(starts()).toBe(5)
  })

  it('forwards the worker’s log lines to the host’s logger, an error field as its message', async () => {
    const { worker, lines } = start()
    await worker.call('log', 'a line from the worker')
    expect(lines).toContainEqual({
      level: 'warn',
      msg: 'a line from the worker',
      fields: expect.objectContaining({ error: 'with an error field', worker: 'echo worker' }),
    })
  })

  it('traces a call slower than slowCallMs with its method and time', async () => {
    let t = 0
    const { worker, lines } = start({ slowCallMs: 1_000, now: () => t })
    await worker.call('echo', 'quick')
    expect(lines.filter((l) => l.msg === 'slow worker call')).toEqual([])
    const waited = worker.call('echo', 'slow')
    t += 1_500
    await waited
    expect(lines.filter((l) => l.msg === 'slow worker call').map((l) => l.fields)).toEqual([
      expect.objectContaining({ worker: 'echo worker', method: 'echo', ms: 1_500 }),
    ])
  })

  it('runs background work in steps between calls, answering a call that comes meanwhile first', async () => {
    const { worker } = start()
    const all = worker.call('work', 2_000)
    const meanwhile = await worker.call('done', undefined as never)
    // The call was answered while background steps were still to run.
    expect(meanwhile).toMatchObject({ ok: true })
    expect((meanwhile as { value: number }).value).toBeLessThan(2_000)
    expect(await all).toEqual({ ok: true, value: 2_000 })
  })

  it('gives the CPU away before the first background step after answers went out, and not between steps', async () => {
    const { worker } = start()
    const all = worker.call('work', 2_000)
    // Answered while the work runs: the step after this answer comes after a yield.
    expect(await worker.call('done', undefined as never)).toMatchObject({ ok: true })
    await all
    const yields = await worker.call('yields', undefined as never)
    // One per batch of answers sent while work was pending ('done'; 'work' itself was answered
    // with the last step, after which nothing was pending), never one per step (2,000 steps).
    expect(yields).toEqual({ ok: true, value: 1 })
  })

  it('runs background work that became pending outside a call once the worker is woken', async () => {
    const { worker } = start()
    // Nothing is pending when the call is served; a timer in the worker releases the work and
    // wakes it. Without the wake no step would run and this call would never be answered.
    expect(await worker.call('later', 50)).toEqual({ ok: true, value: 50 })
  })

  it('answers a call past its time-out with a failure value', async () => {
    const { worker } = start()
    expect(await worker.call('wait', 300, { timeoutMs: 30 })).toMatchObject({
      ok: false,
      failure: { code: 'WORKER_TIMEOUT' },
    })
  })

  it('passes what the worker tells unasked to onEvent', async () => {
    const { worker, events } = start()
    worker.notify('tell', 42)
    await waitFor(() => events.length > 0, 'the event')
    expect(events).toEqual([{ told: 42 }])
  })

  it('answers every call with the reason when the worker file is missing, and never throws', async () => {
    const { worker } = start({ file: null, missing: 'echo-worker.js is missing: rebuild' })
    expect(await worker.call('echo', 'x')).toEqual({
      ok: false,
      failure: { code: 'WORKER_MISSING', message: 'echo-worker.js is missing: rebuild' },
    })
  })

  it('restarts nothing after close, and close waits for the thread to end', async () => {
    const { worker, restarts } = start()
    expect((await worker.call('echo', 'x')).ok).toBe(true)
    await worker.close()
    expect(worker.running()).toBe(false)
    expect(await worker.call('echo', 'after')).toMatchObject({ ok: false, failure: { code: 'WORKER_EXIT' } })
    expect(restarts).toEqual([])
  })
})
