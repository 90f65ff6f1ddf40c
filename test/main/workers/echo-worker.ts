/** A tiny supervised worker for supervisor.test.ts: echoes, sums in batches, logs, waits, and dies
 * on demand (its `crashes` data says how many times it dies on `crash`, per start). */
import { workerData } from 'node:worker_threads'
import { serveWorker } from '../../../src/main/workers/serve.ts'
import type { Served } from '../../../src/main/workers/serve.ts'
import type { EchoCalls, EchoEvent } from './echo-protocol.ts'

const data = workerData as { start: number; batchIntervalMs?: number }
let queued = 0
let done = 0
/** Background work held back until something outside a call (a timer here, another thread's
 * answer in the commit worker) releases it and wakes the worker. */
let held = false
/** Times the worker gave its CPU away before a step, after answers went out. */
let yields = 0
const finished: { at: number; answer: (done: number) => void }[] = []

const served: Served<EchoEvent> = serveWorker<EchoCalls, EchoEvent>({
  handlers: {
    echo: (text) => `${text} (start ${data.start})`,
    log: (msg) => served.log.warn(msg, { error: new Error('with an error field') }),
    wait: (ms) => new Promise<number>((resolve) => setTimeout(() => resolve(ms), ms)),
    crash: () => process.exit(7),
    fail: (message) => {
      throw Object.assign(new Error(message), { code: 'SQLITE_FULL' })
    },
    tell: (n) => served.emit({ told: n }),
    work: (units) =>
      new Promise<number>((answer) => {
        queued += units
        finished.push({ at: queued, answer })
      }),
    done: () => done,
    yields: () => yields,
    later: (units) =>
      new Promise<number>((answer) => {
        held = true
        queued += units
        finished.push({ at: queued, answer })
        setImmediate(() => {
          held = false
          served.wake()
        })
      }),
  },
  batched: { add: (numbers) => numbers.map((n) => n + numbers.length * 1000) },
  batchIntervalMs: data.batchIntervalMs ?? 0,
  background: {
    pending: () => !held && done < queued,
    yieldCpu: () => void yields++,
    step: () => {
      done++
      while (finished.length > 0 && finished[0]!.at <= done) finished.shift()!.answer(done)
    },
  },
})
