/** The forward worker: the dispatcher on its own thread and its own connection, so delivering to
 * targets (HTTP, claims, attempt records) never takes time from the listener's event loop. Built as
 * its own entry (out/main/forward-worker.js); under vitest Node runs this file itself. */
import { createHmac } from 'node:crypto'
import { parentPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import type { Logger } from '../log'
import { createDispatcher } from './dispatcher.ts'
import type { AttemptMessage, ForwardWorkerData, FromWorker, ToWorker } from './worker-protocol.ts'
import { openForwardStore } from './store.ts'

const port = parentPort as MessagePort
const settings = workerData as ForwardWorkerData
const send = (message: FromWorker) => port.postMessage(message)

const log: Logger = {
  debug: () => {},
  info: (msg, fields = {}) => send({ kind: 'log', level: 'info', msg, fields: plain(fields) }),
  warn: (msg, fields = {}) => send({ kind: 'log', level: 'warn', msg, fields: plain(fields) }),
  error: (msg, fields = {}) => send({ kind: 'log', level: 'error', msg, fields: plain(fields) }),
  child: () => log,
  file: null,
}

function plain(fields: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(fields, (_k, v: unknown) => (v instanceof Error ? v.message : v)),
  ) as Record<string, unknown>
}

const store = openForwardStore(settings.file)
let secrets = new Map<string, Uint8Array>()
let maxAgeMs = 24 * 3_600_000
let attempts: AttemptMessage[] = []

const dispatcher = createDispatcher({
  store,
  clock: {
    now: () => Date.now(),
    after(ms, fn) {
      const timer = setTimeout(fn, ms)
      return { dispose: () => clearTimeout(timer) }
    },
  },
  log,
  owner: settings.owner,
  pollMs: settings.pollMs,
  maxAgeMs: () => maxAgeMs,
  originalSignature: (endpoint, body) => {
    const secret = endpoint ? secrets.get(endpoint) : undefined
    return secret ? createHmac('sha256', secret).update(body).digest('hex') : null
  },
  onAttempt: (a) => {
    if (!settings.reportAttempts) return
    const { target, ...rest } = a
    attempts.push({ ...rest, target: target.name })
  },
  onStates: (states) => send({ kind: 'states', states }),
  storageFailed: (what, error) => {
    const code = (error as { code?: unknown } | null)?.code
    send({
      kind: 'storage',
      what,
      code: typeof code === 'string' ? code : null,
      message: error instanceof Error ? error.message : String(error),
    })
  },
})

if (settings.exclusive) {
  try {
    const released = store.releaseLeases(settings.owner)
    if (released > 0) log.info('forwards left in flight by an earlier run are queued again', { released })
  } catch (error) {
    log.error('could not release the leases of an earlier run', { error })
  }
}

// Attempts go to the main thread in batches (the `listen` lines, the live counts); the status
// (counts per target) about twice a second while anything moves.
let lastStatus = ''
const report = setInterval(() => {
  if (attempts.length > 0) {
    send({ kind: 'attempts', attempts })
    attempts = []
  }
  const targets = dispatcher.status()
  const text = JSON.stringify(targets)
  if (text !== lastStatus) send({ kind: 'status', targets })
  lastStatus = text
}, 100)

port.on('message', (message: ToWorker) => {
  switch (message.kind) {
    case 'targets':
      maxAgeMs = message.maxAgeMs
      dispatcher.setTargets(message.targets, message.settings)
      return
    case 'secrets':
      secrets = new Map(message.secrets)
      return
    case 'kick':
      dispatcher.kick()
      return
    case 'relay':
      void dispatcher.relay(message.seq, message.budgetMs).then(
        (answer) => send({ kind: 'relayed', id: message.id, answer }),
        () => send({ kind: 'relayed', id: message.id, answer: null }),
      )
      return
    case 'stop':
      void dispatcher.stop().then(() => {
        clearInterval(report)
        if (attempts.length > 0) send({ kind: 'attempts', attempts })
        let queued = 0
        try {
          for (const c of store.openCounts().values()) queued += c.pending
          send({ kind: 'status', targets: dispatcher.status() })
        } catch (error) {
          log.warn('could not count the queued forwards', { error })
        }
        store.close()
        send({ kind: 'stopped', queued })
        port.close()
      })
      return
  }
})
