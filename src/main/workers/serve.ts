/** The worker side of a supervised worker (host.ts is the other): answers the host's calls by
 * method, replies matched by id, log lines sent to the host's logger. Runtime imports carry their
 * `.ts` extension: under vitest Node runs worker modules directly (it strips the types). */
import { performance } from 'node:perf_hooks'
import { parentPort, receiveMessageOnPort } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import type { Logger } from '../log'
import type { CallReply, Calls, FromWorker, LogLevel, ParamsOf, ReplyOf, ToWorker } from './protocol.ts'
import { failureOf } from './failure.ts'

export type Handlers<C extends Calls> = {
  [M in keyof C]: (params: ParamsOf<C, M>) => ReplyOf<C, M> | Promise<ReplyOf<C, M>>
}

/** Methods answered together: every call of one method that queued up while the worker was busy
 * is handed over at once (one transaction and one fsync for a whole commit batch). */
export type BatchHandlers<C extends Calls> = {
  [M in keyof C]?: (params: ParamsOf<C, M>[]) => ReplyOf<C, M>[]
}

export interface ServeOptions<C extends Calls> {
  handlers: Partial<Handlers<C>>
  batched?: BatchHandlers<C>
  /** Runs when the host closes the worker (after the calls before it were answered). */
  onClose?: () => void | Promise<void>
  /** Group commit: a batch of the batched methods starts at most once per this many ms. Calls
   * that arrive sooner after the previous batch started wait (the worker sleeps, nothing else
   * runs on it) and join the next batch. A call that comes after a quiet spell starts at once. */
  batchIntervalMs?: number
  /** Work done in small steps when no call waits (the commit worker's retention batches): a step
   * runs after the event loop delivered what came meanwhile, and ends early once `interrupted()`
   * says a call arrived; calls are always answered first. */
  background?: {
    pending(): boolean
    step(interrupted: () => boolean): void
    /** Gives the CPU away briefly before the first step after answers went out (default: a
     * 50 µs sleep; tests count it). */
    yieldCpu?: () => void
  }
}

export interface Served<Event> {
  /** Tells the host something unasked. */
  emit(event: Event): void
  /** Lines go to the host's logger (debug lines are dropped). */
  log: Logger
  /** Background work became pending outside a call (an answer from another thread): schedules a
   * step, after whatever calls wait. */
  wake(): void
}

export function serveWorker<C extends Calls, Event = never>(options: ServeOptions<C>): Served<Event> {
  const port = parentPort as MessagePort
  const send = (message: FromWorker) => port.postMessage(message)
  const line =
    (level: LogLevel) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      send({ kind: 'log', level, msg, fields: plain(fields) })
  const log: Logger = {
    debug: () => {},
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: () => log,
    file: null,
  }
  const handlers = options.handlers as Record<string, ((params: unknown) => unknown) | undefined>
  const batched = (options.batched ?? {}) as Record<string, ((params: unknown[]) => unknown[]) | undefined>

  function run(id: number, method: string, params: unknown, replies: CallReply[]): void {
    const handler = handlers[method]
    try {
      if (!handler) throw new Error(`the worker has no method ${method}`)
      const value = handler(params)
      if (value instanceof Promise) {
        void value.then(
          (v) => id !== 0 && send({ kind: 'replies', replies: [{ id, ok: true, value: v }] }),
          (error: unknown) =>
            id !== 0 && send({ kind: 'replies', replies: [{ id, ok: false, failure: failureOf(error) }] }),
        )
      } else if (id !== 0) replies.push({ id, ok: true, value })
    } catch (error) {
      if (id !== 0) replies.push({ id, ok: false, failure: failureOf(error) })
      else log.error('a worker notification failed', { method, error })
    }
  }

  function runBatches(groups: Map<string, { ids: number[]; params: unknown[] }>, replies: CallReply[]): void {
    for (const [method, group] of groups) {
      try {
        const values = batched[method]!(group.params)
        group.ids.forEach((id, i) => id !== 0 && replies.push({ id, ok: true, value: values[i] }))
      } catch (error) {
        const failure = failureOf(error)
        for (const id of group.ids) if (id !== 0) replies.push({ id, ok: false, failure })
      }
    }
  }

  /** Messages taken off the port and not handled yet (taken while a background step ran). */
  const waiting: ToWorker[] = []
  let closing = false
  let stepScheduled = false
  /** Whether answers went out since the last background step. */
  let answered = false
  const yieldCpu = options.background?.yieldCpu ?? sleepBriefly

  /** Takes what waits on the port; true when anything did. */
  function takeWaiting(): boolean {
    const before = waiting.length
    for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port))
      waiting.push(next.message as ToWorker)
    return waiting.length > before
  }

  const interval = options.batchIntervalMs ?? 0
  /** When the last batch started (performance.now()), and a cell to sleep on until the next may. */
  let batchStarted = -Infinity
  const sleepCell = new Int32Array(new SharedArrayBuffer(4))

  /** Sleeps the rest of the interval when a batched call waits and the last batch began too
   * recently, so what arrives meanwhile joins this batch (one transaction and one fsync for all). */
  function pace(): void {
    if (interval <= 0 || !waiting.some((m) => m.kind === 'call' && batched[m.method])) return
    const rest = batchDelay(batchStarted, performance.now(), interval)
    if (rest > 0) Atomics.wait(sleepCell, 0, 0, rest)
    takeWaiting()
    batchStarted = performance.now()
  }

  /** Whatever queued up is taken in one go: batched methods are answered together. */
  function serve(): void {
    takeWaiting()
    pace()
    const replies: CallReply[] = []
    const groups = new Map<string, { ids: number[]; params: unknown[] }>()
    for (const message of waiting.splice(0, waiting.length)) {
      if (closing) break
      if (message.kind === 'close') closing = true
      else if (batched[message.method]) {
        const group = groups.get(message.method) ?? { ids: [], params: [] }
        group.ids.push(message.id)
        group.params.push(message.params)
        groups.set(message.method, group)
      } else run(message.id, message.method, message.params, replies)
    }
    runBatches(groups, replies)
    if (replies.length > 0) {
      send({ kind: 'replies', replies })
      answered = true
    }
    if (closing) return void Promise.resolve(options.onClose?.()).finally(() => port.close())
    scheduleBackground()
  }

  function scheduleBackground(): void {
    if (closing || stepScheduled || !options.background?.pending()) return
    stepScheduled = true
    // After the event loop has delivered what came meanwhile: a call always goes first.
    setImmediate(backgroundStep)
  }

  function backgroundStep(): void {
    stepScheduled = false
    if (closing) return
    if (takeWaiting()) return serve()
    if (answered) {
      answered = false
      // The thread that gets the answers may be waiting for this very CPU (Linux often wakes a
      // thread beside its waker): a step started now would keep it from them for up to a
      // scheduler tick. A short sleep first lets it run (bench/retention.ts, "the answer back":
      // its p99 went from 1.6 ms to 0.13 ms while retention ran, as without).
      yieldCpu()
      if (takeWaiting()) return serve()
    }
    options.background!.step(takeWaiting)
    serve()
  }

  port.on('message', (first: ToWorker) => {
    waiting.push(first)
    serve()
  })

  return { emit: (event) => send({ kind: 'event', event }), log, wake: scheduleBackground }
}

const briefCell = new Int32Array(new SharedArrayBuffer(4))
/** Sleeps 50 µs: long enough for the kernel to run a thread waiting for this CPU. */
function sleepBriefly(): void {
  Atomics.wait(briefCell, 0, 0, 0.05)
}

/** How long a batch must wait to start no sooner than `interval` ms after the previous one. */
export function batchDelay(previousStart: number, now: number, interval: number): number {
  return Math.max(0, previousStart + interval - now)
}

/** Log fields as plain data (an Error becomes its message): structured clone keeps no class. */
function plain(fields: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? v.message : v)),
  ) as Record<string, unknown>
}
