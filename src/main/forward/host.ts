import type { ForwardState, ForwardTargetStatus } from '../../shared/contract/forward'
import type { Disposable } from '../../shared/disposable'
import { Emitter } from '../../shared/emitter'
import type { Logger } from '../log'
import { maskConfigUrl } from '../../shared/config-secrets'
import { superviseWorker, workerFile } from '../workers'
import type { Supervisor, WorkerHealth } from '../workers'
import type { AttemptReport, RelayAnswer } from './dispatcher'
import type { TargetSettings } from './targets'
import { defaultProbeMs } from './dispatcher'
import type { ForwardTarget } from './targets'
import type { ForwardCalls, ForwardEvent, ForwardWorkerData } from './worker-protocol'

/** What the forward service drives: the dispatcher in a worker thread (the app), or in this
 * thread (the replay command, tests with a manual clock). */
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
  /** The forward worker's restarts (null: the dispatcher runs on this thread). */
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

/** The dispatcher in this thread behind the same handle (no worker file, or a caller that wants
 * it here). */
export function inThreadHandle(
  dispatcher: import('./dispatcher').Dispatcher,
  store: import('./store').ForwardStore,
  setSecrets: (secrets: ReadonlyMap<string, Buffer>) => void,
  setMaxAge: (ms: number) => void,
  statusChanged: Emitter<void>,
): DispatcherHandle {
  return {
    onStatus: statusChanged.event,
    setTargets(targets, maxAgeMs, settings) {
      setMaxAge(maxAgeMs)
      dispatcher.setTargets(targets, settings)
    },
    setSecrets,
    kick: () => dispatcher.kick(),
    relay: (seq, budgetMs) => dispatcher.relay(seq, budgetMs),
    status: () => dispatcher.status(),
    worker: () => null,
    async stop() {
      await dispatcher.stop()
      let queued = 0
      for (const c of store.openCounts().values()) queued += c.pending
      return queued
    },
  }
}

/** Starts the forward worker under supervision (src/main/workers/): a worker that dies is started
 * again with back-off and given the targets and secrets again (its leases are released by the new
 * one), so forwarding recovers by itself. */
export function startForwardWorker(workerFile: string, options: WorkerHostOptions): DispatcherHandle {
  const data: ForwardWorkerData = {
    file: options.file,
    owner: options.owner,
    exclusive: options.exclusive,
    reportAttempts: options.onAttempt === undefined ? 'none' : (options.attempts ?? 'all'),
  }
  let targets: ForwardTarget[] = []
  let maxAgeMs = 24 * 3_600_000
  let settings: TargetSettings = { authorizer: null, probeMs: defaultProbeMs }
  let secrets: [string, Uint8Array][] = []
  let status: ForwardTargetStatus[] = []
  const statusChanged = new Emitter<void>({
    onListenerError: (error) => options.log.error('a forward status listener threw', { error }),
  })

  const worker = superviseWorker<ForwardCalls, ForwardWorkerData, ForwardEvent>({
    name: 'forward worker',
    file: workerFile,
    data: () => data,
    log: options.log,
    onStart: (started: Supervisor<ForwardCalls>) => {
      started.notify('secrets', secrets)
      started.notify('targets', { targets, maxAgeMs, settings })
    },
    onRestart: (failure) => options.log.error('forward worker stopped; starting it again', { ...failure }),
    // A crash loop (or its end) changes forward.status: its problem says so.
    onHealth: () => {
      statusChanged.fire()
    },
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
