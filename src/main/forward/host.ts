import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { ForwardState, ForwardTargetStatus } from '../../shared/contract/forward'
import type { Logger } from '../log'
import type { AttemptReport, RelayAnswer, TargetSettings } from './dispatcher'
import { defaultProbeMs } from './dispatcher'
import type { ForwardTarget } from './targets'
import type { ForwardWorkerData, FromWorker, ToWorker } from './worker-protocol'

/** What the forward service drives: the dispatcher in a worker thread (the app), or in this
 * thread (the replay command, tests with a manual clock). */
export interface DispatcherHandle {
  setTargets(targets: ForwardTarget[], maxAgeMs: number, settings: TargetSettings): void
  setSecrets(secrets: ReadonlyMap<string, Buffer>): void
  kick(): void
  relay(seq: number, budgetMs: number): Promise<RelayAnswer | null>
  status(): ForwardTargetStatus[]
  /** Lets the attempts under way finish; how many forwards stay queued. */
  stop(): Promise<number>
}

export interface WorkerHostOptions {
  file: string
  owner: string
  exclusive: boolean
  pollMs?: number
  log: Logger
  onAttempt?: (report: AttemptReport) => void
  onStates?: (states: Record<string, ForwardState>) => void
  storageFailed?: (what: string, error: { code: string | null; message: string }) => void
  /** Queued rows per target from this thread's connection: the counts until the worker reports
   * its own (right after the start, `listen` prints them). */
  counts?: () => Map<string, { pending: number; failing: number }>
}

/** out/main/forward-worker.js beside the bundle (or one level up from a chunk), out/bench for the
 * benches, or the TypeScript source when the sources run (vitest: Node strips the types). */
export function forwardWorkerFile(): string | null {
  const here = dirname(fileURLToPath(import.meta.url))
  const candidates = [
    join(here, 'forward-worker.js'),
    join(here, '..', 'forward-worker.js'),
    join(here, 'worker.ts'),
  ]
  return candidates.find((file) => existsSync(file)) ?? null
}

const restartDelayMs = 1_000

export const emptyStatus = (
  t: ForwardTarget,
  counts: { pending: number; failing: number } = { pending: 0, failing: 0 },
): ForwardTargetStatus => ({
  name: t.name,
  url: t.url,
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
): DispatcherHandle {
  return {
    setTargets(targets, maxAgeMs, settings) {
      setMaxAge(maxAgeMs)
      dispatcher.setTargets(targets, settings)
    },
    setSecrets,
    kick: () => dispatcher.kick(),
    relay: (seq, budgetMs) => dispatcher.relay(seq, budgetMs),
    status: () => dispatcher.status(),
    async stop() {
      await dispatcher.stop()
      let queued = 0
      for (const c of store.openCounts().values()) queued += c.pending
      return queued
    },
  }
}

/** Starts the forward worker; a worker that dies is started again (its leases are released by
 * the new one), so forwarding recovers by itself. */
export function startForwardWorker(workerFile: string, options: WorkerHostOptions): DispatcherHandle {
  const data: ForwardWorkerData = {
    file: options.file,
    owner: options.owner,
    pollMs: options.pollMs ?? 50,
    exclusive: options.exclusive,
    reportAttempts: options.onAttempt !== undefined,
  }
  let targets: ForwardTarget[] = []
  let maxAgeMs = 24 * 3_600_000
  let settings: TargetSettings = { authorizer: null, probeMs: defaultProbeMs }
  let secrets: [string, Uint8Array][] = []
  let status: ForwardTargetStatus[] = []
  const relays = new Map<number, (answer: RelayAnswer | null) => void>()
  let nextId = 1
  let stopping: ((queued: number) => void) | null = null
  let worker: Worker | null = null
  let closed = false

  function start(): void {
    if (closed) return
    const w = new Worker(workerFile, { workerData: { ...data, exclusive: data.exclusive } })
    w.unref()
    w.on('message', (m: FromWorker) => onMessage(m))
    w.on('error', (error) => options.log.error('forward worker failed', { error }))
    w.on('exit', (code) => {
      if (w !== worker) return
      worker = null
      for (const resolve of relays.values()) resolve(null)
      relays.clear()
      if (stopping) return stopping(0)
      if (closed) return
      options.log.error('forward worker stopped; starting it again', { code })
      setTimeout(start, restartDelayMs).unref()
    })
    worker = w
    post({ kind: 'secrets', secrets })
    post({ kind: 'targets', targets, maxAgeMs, settings })
  }

  function post(message: ToWorker): void {
    worker?.postMessage(message)
  }

  function onMessage(m: FromWorker): void {
    switch (m.kind) {
      case 'attempts':
        if (!options.onAttempt) return
        for (const a of m.attempts) {
          const target = targets.find((t) => t.name === a.target)
          if (target) options.onAttempt({ ...a, target })
        }
        return
      case 'states':
        options.onStates?.(m.states)
        return
      case 'status':
        status = m.targets
        return
      case 'relayed': {
        const answer = m.answer
          ? {
              ...m.answer,
              body: Buffer.from(m.answer.body.buffer, m.answer.body.byteOffset, m.answer.body.byteLength),
            }
          : null
        relays.get(m.id)?.(answer)
        relays.delete(m.id)
        return
      }
      case 'storage':
        options.storageFailed?.(m.what, { code: m.code, message: m.message })
        return
      case 'log':
        options.log[m.level](m.msg, m.fields)
        return
      case 'stopped':
        stopping?.(m.queued)
        return
    }
  }

  start()
  return {
    setTargets(next, nextMaxAgeMs, nextSettings) {
      targets = next
      maxAgeMs = nextMaxAgeMs
      settings = nextSettings
      post({ kind: 'targets', targets, maxAgeMs, settings })
    },
    setSecrets(next) {
      secrets = [...next].map(([endpoint, secret]) => [endpoint, new Uint8Array(secret)])
      post({ kind: 'secrets', secrets })
    },
    kick: () => post({ kind: 'kick' }),
    relay(seq, budgetMs) {
      if (!worker) return Promise.resolve(null)
      const id = nextId++
      return new Promise((resolve) => {
        // The answer is due within the budget; a stuck worker must not hold the listener's answer.
        const guard = setTimeout(() => {
          relays.delete(id)
          resolve(null)
        }, budgetMs + 100)
        relays.set(id, (answer) => {
          clearTimeout(guard)
          resolve(answer)
        })
        post({ kind: 'relay', id, seq, budgetMs })
      })
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
    stop() {
      closed = true
      const w = worker
      if (!w) return Promise.resolve(0)
      w.ref()
      return new Promise<number>((resolve) => {
        stopping = resolve
        post({ kind: 'stop' })
      }).then(async (queued) => {
        if (worker === w) await new Promise((r) => w.once('exit', r))
        return queued
      })
    },
  }
}
