import { Worker } from 'node:worker_threads'
import type { TransferListItem } from 'node:worker_threads'
import { silentLogger } from '../log.ts'
import type { Logger } from '../log.ts'
import { failureOf } from './failure.ts'
import type { CallReply, Calls, FromWorker, ParamsOf, ReplyOf, ToWorker, WorkerFailure } from './protocol.ts'

export type { WorkerFailure } from './protocol.ts'

export type CallResult<T> = { ok: true; value: T } | { ok: false; failure: WorkerFailure }

export interface SupervisorOptions<Data, Event> {
  /** Named in the log lines ("commit worker"). */
  name: string
  /** The worker's module (its built .js, or the .ts source under vitest); null when it is missing. */
  file: string | null
  /** Why `file` is null, said to every caller. */
  missing?: string
  /** Read at every (re)start, so a restarted worker gets the current settings. */
  data: () => Data
  /** Where the worker's lines and the slow-call trace go (none by default). */
  log?: Logger
  /** What the worker tells unasked. */
  onEvent?: (event: Event) => void
  /** A worker (re)started: the host posts the state the worker keeps (targets, secrets), before
   * any call made after this one. */
  onStart?: (worker: Supervisor<any>) => void
  /** The worker died and is started again after `delayMs`. */
  onRestart?: (failure: WorkerFailure, delayMs: number) => void
  firstRestartDelayMs?: number
  maxRestartDelayMs?: number
  /** A call answered later than this is logged with its method and time (the slow-call trace). */
  slowCallMs?: number
  /** The slow-call trace's clock (tests pass a manual one). */
  now?: () => number
  /** More than `restarts` restarts within `windowMs` is a crash loop (default: 3 in a minute). */
  crashLoop?: { restarts: number; windowMs: number }
  /** The worker turned crash-looping, or ran again for a whole window without a restart. */
  onHealth?: (health: WorkerHealth) => void
}

/** Whether a supervised worker keeps running: `crashLoop` while it restarted more than a few
 * times in the window (it may be up for a moment between restarts, doing nothing useful). */
export interface WorkerHealth {
  crashLoop: boolean
  /** Restarts within the window. */
  restarts: number
  /** The last failure that stopped it; null when it never stopped. */
  lastFailure: WorkerFailure | null
  lastFailureAt: number | null
}

export interface Supervisor<C extends Calls> {
  /** Asks the worker; never throws: a worker that is down, dies meanwhile or misses `timeoutMs`
   * answers with a failure value. `transfer`: buffers in `params` that move to the worker (no
   * longer usable here) instead of being copied. */
  call<M extends keyof C & string>(
    method: M,
    params: ParamsOf<C, M>,
    options?: { timeoutMs?: number; transfer?: readonly TransferListItem[] },
  ): Promise<CallResult<ReplyOf<C, M>>>
  /** Tells the worker, expecting no answer (dropped while the worker is down: `onStart` re-posts state). */
  notify<M extends keyof C & string>(method: M, params: ParamsOf<C, M>): void
  /** Whether a worker runs now. */
  running(): boolean
  /** Restarts within the crash-loop window, and whether they make a crash loop. */
  health(): WorkerHealth
  /** Lets the worker finish what it was given, then waits for its thread to end; no restart after. */
  close(): Promise<void>
}

interface Pending {
  method: string
  at: number
  resolve: (reply: CallResult<unknown>) => void
  timer: NodeJS.Timeout | null
}

/** One worker thread under supervision (Signal Desktop's MainSQL as the model): typed calls with
 * id-matched replies, the worker's log lines forwarded to the host's logger, slow calls traced, and
 * a worker that dies restarted with back-off while its pending calls are answered with a failure. */
export function superviseWorker<C extends Calls, Data = unknown, Event = never>(
  options: SupervisorOptions<Data, Event>,
): Supervisor<C> {
  const firstDelay = options.firstRestartDelayMs ?? 250
  const maxDelay = options.maxRestartDelayMs ?? 5_000
  const slowCallMs = options.slowCallMs ?? 1_000
  const log = options.log ?? silentLogger
  const now = options.now ?? Date.now
  const pending = new Map<number, Pending>()
  let nextId = 1
  let worker: Worker | null = null
  let lastFailure: WorkerFailure = { code: 'WORKER_STARTING', message: `the ${options.name} is starting` }
  let restartDelay = firstDelay
  let restartTimer: NodeJS.Timeout | null = null
  let closed = false
  const loop = crashLoopWatch(options, now)

  function start(): void {
    restartTimer = null
    if (closed) return
    if (options.file === null) {
      lost(null, {
        code: 'WORKER_MISSING',
        message:
          options.missing ?? `the ${options.name}'s file is missing: rebuild watchdesk (npm run build)`,
      })
      return
    }
    const w = new Worker(options.file, { workerData: options.data() })
    // Unreferenced so it never keeps the process up; referenced while closing.
    w.unref()
    w.on('message', (message: FromWorker) => {
      restartDelay = firstDelay
      onMessage(message)
    })
    w.on('error', (error) => lost(w, failureOf(error)))
    w.on('exit', (code) =>
      lost(w, { code: 'WORKER_EXIT', message: `the ${options.name} stopped (exit code ${code})` }),
    )
    worker = w
    options.onStart?.(self)
  }

  function onMessage(message: FromWorker): void {
    if (message.kind === 'replies') for (const reply of message.replies) answer(reply)
    else if (message.kind === 'event') options.onEvent?.(message.event as Event)
    else log[message.level](message.msg, { ...message.fields, worker: options.name })
  }

  function answer(reply: CallReply): void {
    const call = pending.get(reply.id)
    if (!call) return
    pending.delete(reply.id)
    if (call.timer) clearTimeout(call.timer)
    const ms = now() - call.at
    if (ms >= slowCallMs) log.warn('slow worker call', { worker: options.name, method: call.method, ms })
    call.resolve(reply.ok ? { ok: true, value: reply.value } : { ok: false, failure: reply.failure })
  }

  function lost(w: Worker | null, failure: WorkerFailure): void {
    if (w !== worker) return
    worker = null
    lastFailure = failure
    for (const call of pending.values()) {
      if (call.timer) clearTimeout(call.timer)
      call.resolve({ ok: false, failure })
    }
    pending.clear()
    if (closed) return
    options.onRestart?.(failure, restartDelay)
    loop.restarted(failure)
    restartTimer = setTimeout(start, restartDelay)
    restartTimer.unref()
    restartDelay = Math.min(restartDelay * 2, maxDelay)
  }

  const post = (w: Worker, message: ToWorker, transfer?: readonly TransferListItem[]) =>
    w.postMessage(message, transfer)

  const self: Supervisor<C> = {
    call(method, params, callOptions = {}) {
      const w = worker
      if (!w) return Promise.resolve({ ok: false, failure: lastFailure })
      const id = nextId++
      return new Promise((resolve) => {
        const call: Pending = { method, at: now(), resolve: resolve as Pending['resolve'], timer: null }
        if (callOptions.timeoutMs !== undefined) {
          call.timer = setTimeout(() => {
            pending.delete(id)
            resolve({
              ok: false,
              failure: {
                code: 'WORKER_TIMEOUT',
                message: `the ${options.name} did not answer ${method} within ${callOptions.timeoutMs} ms`,
              },
            })
          }, callOptions.timeoutMs)
        }
        pending.set(id, call)
        post(w, { kind: 'call', id, method, params }, callOptions.transfer)
      })
    },
    notify(method, params) {
      if (worker) post(worker, { kind: 'call', id: 0, method, params })
    },
    running: () => worker !== null,
    health: () => loop.health(),
    async close() {
      closed = true
      loop.stop()
      if (restartTimer) clearTimeout(restartTimer)
      const w = worker
      if (!w) return
      const exited = new Promise((r) => w.once('exit', r))
      w.ref()
      post(w, { kind: 'close' })
      await exited
    },
  }
  start()
  return self
}

/** Counts restarts in a sliding window: more than `restarts` in `windowMs` is a crash loop, said
 * through `onHealth` when it starts and again when a whole window passed without one. */
function crashLoopWatch(
  options: Pick<SupervisorOptions<unknown, unknown>, 'crashLoop' | 'onHealth'>,
  now: () => number,
): { restarted(failure: WorkerFailure): void; health(): WorkerHealth; stop(): void } {
  const { restarts: most, windowMs } = options.crashLoop ?? { restarts: 3, windowMs: 60_000 }
  let times: number[] = []
  let lastFailure: WorkerFailure | null = null
  let lastFailureAt: number | null = null
  let looping = false
  let timer: NodeJS.Timeout | null = null
  /** The truth at the time asked (onHealth follows by a timer). */
  const health = (): WorkerHealth => {
    const since = now() - windowMs
    times = times.filter((t) => t > since)
    return { crashLoop: times.length > most, restarts: times.length, lastFailure, lastFailureAt }
  }
  /** Re-checked when the oldest restart leaves the window: a loop ends only then. */
  const check = () => {
    timer = null
    const h = health()
    if (h.crashLoop !== looping) {
      looping = h.crashLoop
      options.onHealth?.(h)
    }
    if (times.length > 0) {
      timer = setTimeout(check, Math.max(1, times[0]! + windowMs - now() + 1))
      timer.unref()
    }
  }
  return {
    restarted(failure) {
      lastFailure = failure
      lastFailureAt = now()
      times.push(lastFailureAt)
      if (timer) clearTimeout(timer)
      check()
    },
    health,
    stop() {
      if (timer) clearTimeout(timer)
      timer = null
    },
  }
}
