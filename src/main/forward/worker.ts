/** The forward worker: the dispatcher on its own thread and its own connection, so delivering to
 * targets (HTTP, claims, attempt records) never takes time from the listener's event loop. Built as
 * its own entry (out/main/forward-worker.js); under vitest Node runs this file itself. It sleeps
 * between kicks and due times, and tells the host its status and attempts when they change. */
import { createHmac } from 'node:crypto'
import { threadId, workerData } from 'node:worker_threads'
import { systemPollClock } from '../../shared/clock.ts'
import { failureOf } from '../workers/failure.ts'
import { serveWorker } from '../workers/serve.ts'
import { watchOtherCommits } from '../db/commit-watch.ts'
import { createDispatcher } from './dispatcher.ts'
import type { AttemptMessage, ForwardCalls, ForwardEvent, ForwardWorkerData } from './worker-protocol.ts'
import { openForwardStore } from './store.ts'

const settings = workerData as ForwardWorkerData
const store = openForwardStore(settings.file)
/** Each started worker leases as its own owner: one started again after a crash frees the leases
 * of the one that died (releaseLeases keeps only its own). */
const owner = `${settings.owner}.${threadId}`
let secrets = new Map<string, Uint8Array>()
let maxAgeMs = 24 * 3_600_000
let attempts: AttemptMessage[] = []

const served = serveWorker<ForwardCalls, ForwardEvent>({
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
  onClose: () => {
    otherCommits.stop()
    store.close()
  },
})
const log = served.log

/** The attempts finished in one turn of the event loop go to the host in one message. */
function sendAttempts(): void {
  if (attempts.length === 0) return
  served.emit({ kind: 'attempts', attempts })
  attempts = []
}

const dispatcher = createDispatcher({
  store,
  clock: systemPollClock,
  log,
  owner,
  maxAgeMs: () => maxAgeMs,
  originalSignature: (endpoint, body) => {
    const secret = endpoint ? secrets.get(endpoint) : undefined
    return secret ? createHmac('sha256', secret).update(body).digest('hex') : null
  },
  onAttempt: (a) => {
    if (settings.reportAttempts === 'none') return
    if (settings.reportAttempts === 'failed' && a.state === 'delivered') return
    const { target, ...rest } = a
    if (attempts.length === 0) setImmediate(sendAttempts)
    attempts.push({ ...rest, target: target.name })
  },
  onStates: (states) => served.emit({ kind: 'states', states }),
  onStatus: (targets) => served.emit({ kind: 'status', targets }),
  storageFailed: (what, error) => served.emit({ kind: 'storage', what, ...failureOf(error) }),
})

if (settings.exclusive) {
  try {
    const released = store.releaseLeases(owner)
    if (released > 0) log.info('forwards left in flight by an earlier run are queued again', { released })
  } catch (error) {
    log.error('could not release the leases of an earlier run', { error })
  }
}

/** Rows another process queued (an MCP `replay_events`, `watchdesk events replay` leaving a failed
 * row for its schedule) wake the dispatcher within half a second: this connection's data_version
 * changes with every commit but its own (the commit worker's too, which kicks it anyway). Only
 * while there is a target to send to; a kick with nothing due costs one look per target. */
const otherCommitsEveryMs = 500
const otherCommits = watchOtherCommits(
  () => store.dataVersion(),
  () => {
    if (dispatcher.targets().length > 0) dispatcher.kick()
  },
  {
    everyMs: otherCommitsEveryMs,
    onError: (error) => log.warn('could not read the data version', { error }),
  },
)
