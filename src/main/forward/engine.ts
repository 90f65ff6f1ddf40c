/** The forwarder's handlers: the dispatcher and what the host tells it (targets, secrets, kicks,
 * relays, stop), written once for both transports: the forward worker's thread (worker.ts) and this
 * thread (host.ts, `startForwardInThread`). Signing with the original signature and releasing an
 * earlier run's leases live here alone. Runtime imports carry their `.ts` extension: the forward
 * worker runs this file directly under vitest (Node strips the types). */
import { createHmac } from 'node:crypto'
import type { PollClock } from '../../shared/clock.ts'
import type { Logger } from '../log'
import { failureOf } from '../workers/failure.ts'
import type { Handlers } from '../workers/serve.ts'
import { createDispatcher } from './dispatcher.ts'
import type { Dispatcher } from './dispatcher.ts'
import type { ForwardStore } from './store.ts'
import type { AttemptMessage, ForwardCalls, ForwardEvent, ForwardWorkerData } from './worker-protocol.ts'

export interface ForwardEngineOptions extends Omit<ForwardWorkerData, 'file'> {
  store: ForwardStore
  clock: PollClock
  log: Logger
  /** What the engine tells unasked (the transport carries it to the host). */
  emit: (event: ForwardEvent) => void
}

export interface ForwardEngine {
  handlers: Handlers<ForwardCalls>
  dispatcher: Dispatcher
}

export function createForwardEngine(options: ForwardEngineOptions): ForwardEngine {
  const { store, log, owner, emit } = options
  let secrets = new Map<string, Uint8Array>()
  let maxAgeMs = 24 * 3_600_000
  let attempts: AttemptMessage[] = []

  /** The attempts finished in one turn of the event loop go to the host in one message. */
  const sendAttempts = (): void => {
    if (attempts.length === 0) return
    emit({ kind: 'attempts', attempts })
    attempts = []
  }

  const dispatcher = createDispatcher({
    store,
    clock: options.clock,
    log,
    owner,
    maxAgeMs: () => maxAgeMs,
    originalSignature: (endpoint, body) => {
      const secret = endpoint ? secrets.get(endpoint) : undefined
      return secret ? createHmac('sha256', secret).update(body).digest('hex') : null
    },
    onAttempt: (a) => {
      if (options.reportAttempts === 'none') return
      if (options.reportAttempts === 'failed' && a.state === 'delivered') return
      const { target, ...rest } = a
      if (attempts.length === 0) setImmediate(sendAttempts)
      attempts.push({ ...rest, target: target.name })
    },
    onStates: (states) => emit({ kind: 'states', states }),
    onStatus: (targets) => emit({ kind: 'status', targets }),
    storageFailed: (what, error) => emit({ kind: 'storage', what, ...failureOf(error) }),
  })

  if (options.exclusive) {
    try {
      const released = store.releaseLeases(owner)
      if (released > 0) log.info('forwards left in flight by an earlier run are queued again', { released })
    } catch (error) {
      log.error('could not release the leases of an earlier run', { error })
      emit({ kind: 'storage', what: 'forward lease release', ...failureOf(error) })
    }
  }

  return {
    dispatcher,
    handlers: {
      targets(message) {
        maxAgeMs = message.maxAgeMs
        dispatcher.setTargets(message.targets, message.settings)
      },
      secrets(list) {
        secrets = new Map(list)
      },
      kick: () => dispatcher.kick(),
      relay: ({ seq, budgetMs }) => dispatcher.relay(seq, budgetMs),
      async stop() {
        await dispatcher.stop()
        sendAttempts()
        let queued = 0
        for (const c of store.openCounts().values()) queued += c.pending
        return queued
      },
    },
  }
}
