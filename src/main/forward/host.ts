import type { ForwardState, ForwardTargetStatus } from '../../shared/contract/forward'
import type { Disposable } from '../../shared/disposable'
import { Emitter } from '../../shared/emitter'
import type { Logger } from '../log'
import { maskConfigUrl } from '../../shared/config-secrets'
import type { PollClock } from '../../shared/clock'
import { failureOf, superviseWorker, workerFile } from '../workers'
import type { CallResult, Supervisor, WorkerHealth } from '../workers'
import { createForwardEngine } from './engine'
import type { ForwardStore } from './store'
import type { AttemptReport, RelayAnswer } from './dispatcher'
import type { TargetSettings } from './targets'
import { defaultProbeMs } from './dispatcher'
import type { ForwardTarget } from './targets'
import type { ForwardCalls, ForwardEvent, ForwardWorkerData } from './worker-protocol'

/** What the forward service drives: the forward engine in a worker thread (the app), or in this
 * thread (no worker file, or a manual clock). */
export interface DispatcherHandle {
  setTargets(targets: ForwardTarget[], maxAgeMs: number, settings: TargetSettings): void
  setSecrets(secrets: ReadonlyMap<string, Buffer>): void
  kick(): void
  relay(seq: number, budgetMs: number): Promise<RelayAnswer | null>
  status(): ForwardTargetStatus[]
  /** Called when the status changed (the worker reports it; no timer). */
  onStatus(listener: () => void): Disposable
  /** Lets the attempts under way finish; how many forwards stay queued. */
  stop(): Promise<number>
  /** The forward worker's restarts (null: no forward worker runs: the dispatcher runs on this
   * thread, or there has been no target yet). */
  worker(): WorkerHealth | null
}

export interface WorkerHostOptions {
  file: string
  owner: string
  exclusive: boolean
  log: Logger
  onAttempt?: (report: AttemptReport) => void
  /** Whether `onAttempt` wants delivered attempts too (default) or only the failed ones. */
  attempts?: 'all' | 'failed'
  onStates?: (states: Record<string, ForwardState>) => void
  storageFailed?: (what: string, error: { code: string | null; message: string }) => void
  /** Queued rows per target from this thread's connection: the counts until the worker reports
   * its own (right after the start, `listen` prints them). */
  counts?: () => Map<string, { pending: number; failing: number }>
}

/** out/main/forward-worker.js beside the bundle (or one level up from a chunk), out/bench for the
 * benches, or the TypeScript source when the sources run (vitest: Node strips the types). */
export function forwardWorkerFile(): string | null {
  return workerFile(import.meta.url, 'forward-worker.js', 'worker.ts')
}

export const emptyStatus = (
  t: ForwardTarget,
  counts: { pending: number; failing: number } = { pending: 0, failing: 0 },
): ForwardTargetStatus => ({
  name: t.name,
  url: maskConfigUrl(t.url),
  enabled: t.enabled,
  adhoc: t.adhoc,
  events: t.events,
  signing: t.secret ? 'target secret' : 'original',
  health: t.enabled ? 'ok' : 'disabled',
  delivered: 0,
  pending: counts.pending,
  failing: counts.failing,
  gaveUp: 0,
  inFlight: 0,
  lastError: null,
  lastErrorAt: null,
  lastOkAt: null,
})

/** How the host reaches the forward engine: a supervised worker thread, or this thread. */
type ForwardTransport = Pick<Supervisor<ForwardCalls>, 'call' | 'notify' | 'close'> & {
  /** The worker's restarts; null in this thread, or before the worker started. */
  health(): WorkerHealth | null
  /** The targets' status read at once (this thread); absent: the status the engine last reported. */
  status?: () => ForwardTargetStatus[]
}

/** What the host hears from a transport. */
interface TransportHooks {
  /** A worker (re)started: the state it keeps is posted again. */
  onStart(started: Pick<Supervisor<ForwardCalls>, 'notify'>): void
  onEvent(event: ForwardEvent): void
  onHealth(): void
}

/** Starts the forward worker under supervision (src/main/workers/): a worker that dies is started
 * again with back-off and given the targets and secrets again (its leases are released by the new
 * one), so forwarding recovers by itself. */
export function startForwardWorker(workerFile: string, options: WorkerHostOptions): DispatcherHandle {
  const data = workerDataOf(options)
  return forwardHost(options, (hooks) =>
    startedWithFirstTarget(
      () =>
        superviseWorker<ForwardCalls, ForwardWorkerData, ForwardEvent>({
          name: 'forward worker',
          file: workerFile,
          data: () => data,
          log: options.log,
          onStart: hooks.onStart,
          onRestart: (failure) =>
            options.log.error('forward worker stopped; starting it again', { ...failure }),
          // A crash loop (or its end) changes forward.status: its problem says so.
          onHealth: hooks.onHealth,
          onEvent: hooks.onEvent,
        }),
      options.counts,
    ),
  )
}

/** The forward worker's thread starts with the first target (configured, a `--forward-to` URL or
 * a replay's URL), not with the console: with no target there is nothing it could send, claim or
 * relay, and most consoles forward nothing, so they never pay its start (0.15-0.2 s of CPU) or its
 * memory. Until then the host answers for it as the worker would: no authorizer to relay to, and
 * at stop the rows still queued, read on this thread. Its state (targets, secrets) is posted by
 * `onStart` when it starts; it stays up when the targets are removed again. */
function startedWithFirstTarget(
  start: () => Supervisor<ForwardCalls>,
  counts: WorkerHostOptions['counts'],
): ForwardTransport {
  let worker: Supervisor<ForwardCalls> | null = null
  return {
    notify(method, params) {
      if (worker) worker.notify(method, params)
      else if (method === 'targets' && (params as { targets: unknown[] }).targets.length > 0) worker = start()
    },
    call(method, params, callOptions) {
      if (worker) return worker.call(method, params, callOptions)
      return Promise.resolve(idleAnswer(method, counts) as CallResult<never>)
    },
    close: async () => worker?.close(),
    health: () => worker?.health() ?? null,
  }
}

/** What a forward worker with no target would answer: no relay (there is no authorizer), and at
 * stop the forwards still queued (rows of targets removed since they were queued). */
function idleAnswer(method: keyof ForwardCalls, counts: WorkerHostOptions['counts']): CallResult<unknown> {
  if (method !== 'stop') return { ok: true, value: method === 'relay' ? null : undefined }
  try {
    let queued = 0
    for (const c of (counts?.() ?? new Map()).values()) queued += c.pending
    return { ok: true, value: queued }
  } catch (error) {
    return { ok: false, failure: failureOf(error) }
  }
}

/** The same engine and handlers in this thread (no worker file, or a caller that wants it here:
 * a manual clock): calls go straight to the handlers, events straight back, the status is read at
 * once from the dispatcher. */
export function startForwardInThread(
  options: WorkerHostOptions & { store: ForwardStore; clock: PollClock },
): DispatcherHandle {
  const data = workerDataOf(options)
  return forwardHost(options, (hooks) => {
    const engine = createForwardEngine({
      ...data,
      store: options.store,
      clock: options.clock,
      log: options.log,
      emit: hooks.onEvent,
    })
    const run = (method: keyof ForwardCalls, params: unknown) =>
      (engine.handlers[method] as (params: unknown) => unknown)(params)
    return {
      notify: (method, params) => void run(method, params),
      call: async (method, params) => {
        try {
          return { ok: true, value: (await run(method, params)) as never }
        } catch (error) {
          return { ok: false, failure: failureOf(error) }
        }
      },
      close: async () => {},
      health: () => null,
      status: () => engine.dispatcher.status(),
    }
  })
}

function workerDataOf(options: WorkerHostOptions): ForwardWorkerData {
  return {
    file: options.file,
    owner: options.owner,
    exclusive: options.exclusive,
    reportAttempts: options.onAttempt === undefined ? 'none' : (options.attempts ?? 'all'),
  }
}

/** The host side, whatever the transport: keeps the targets, secrets and settings the engine is
 * given (again after a restart), hands its events on, and answers the status. */
function forwardHost(
  options: WorkerHostOptions,
  connect: (hooks: TransportHooks) => ForwardTransport,
): DispatcherHandle {
  let targets: ForwardTarget[] = []
  let maxAgeMs = 24 * 3_600_000
  let settings: TargetSettings = { authorizer: null, probeMs: defaultProbeMs }
  let secrets: [string, Uint8Array][] = []
  let status: ForwardTargetStatus[] = []
  const statusChanged = new Emitter<void>({
    onListenerError: (error) => options.log.error('a forward status listener threw', { error }),
  })

  const worker = connect({
    onStart: (started) => {
      started.notify('secrets', secrets)
      started.notify('targets', { targets, maxAgeMs, settings })
    },
    onHealth: () => statusChanged.fire(),
    onEvent,
  })

  function onEvent(e: ForwardEvent): void {
    switch (e.kind) {
      case 'attempts':
        if (!options.onAttempt) return
        for (const a of e.attempts) {
          const target = targets.find((t) => t.name === a.target)
          if (target) options.onAttempt({ ...a, target })
        }
        return
      case 'states':
        options.onStates?.(e.states)
        return
      case 'status':
        status = e.targets
        statusChanged.fire()
        return
      case 'storage':
        options.storageFailed?.(e.what, { code: e.code, message: e.message })
        return
    }
  }

  return {
    setTargets(next, nextMaxAgeMs, nextSettings) {
      targets = next
      maxAgeMs = nextMaxAgeMs
      settings = nextSettings
      worker.notify('targets', { targets, maxAgeMs, settings })
    },
    setSecrets(next) {
      secrets = [...next].map(([endpoint, secret]) => [endpoint, new Uint8Array(secret)])
      worker.notify('secrets', secrets)
    },
    kick: () => worker.notify('kick', undefined),
    async relay(seq, budgetMs) {
      // The answer is due within the budget; a stuck worker must not hold the listener's answer.
      const reply = await worker.call('relay', { seq, budgetMs }, { timeoutMs: budgetMs + 100 })
      if (!reply.ok || !reply.value) return null
      const body = reply.value.body
      return { ...reply.value, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) }
    },
    // Until the worker reports a target, it shows with what is queued for it and nothing else.
    status() {
      if (worker.status) return worker.status()
      let counts: Map<string, { pending: number; failing: number }> | null = null
      return targets.map((t) => {
        const reported = status.find((s) => s.name === t.name)
        if (reported) return reported
        try {
          counts ??= options.counts?.() ?? new Map()
        } catch {
          counts = new Map()
        }
        return emptyStatus(t, counts.get(t.name))
      })
    },
    onStatus: statusChanged.event,
    worker: () => worker.health(),
    async stop() {
      const stopped = await worker.call('stop', undefined)
      await worker.close()
      return stopped.ok ? stopped.value : 0
    },
  }
}
