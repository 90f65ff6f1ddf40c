/** The forward worker: the dispatcher on its own thread and its own connection, so delivering to
 * targets (HTTP, claims, attempt records) never takes time from the listener's event loop. Built as
 * its own entry (out/main/forward-worker.js); under vitest Node runs this file itself. It sleeps
 * between kicks and due times, and tells the host its status and attempts when they change. The
 * handlers are the forward engine's (engine.ts), the same the in-thread transport runs. */
import { threadId, workerData } from 'node:worker_threads'
import { systemPollClock } from '../../shared/clock.ts'
import { serveWorker } from '../workers/serve.ts'
import type { Handlers } from '../workers/serve.ts'
import { watchOtherCommits } from '../db/commit-watch.ts'
import { createForwardEngine } from './engine.ts'
import type { ForwardCalls, ForwardEvent, ForwardWorkerData } from './worker-protocol.ts'
import { openForwardStore } from './store.ts'

const settings = workerData as ForwardWorkerData
const store = openForwardStore(settings.file)
const handlers: Partial<Handlers<ForwardCalls>> = {}
const served = serveWorker<ForwardCalls, ForwardEvent>({
  handlers,
  onClose: () => {
    otherCommits.stop()
    store.close()
  },
})
const log = served.log
const engine = createForwardEngine({
  ...settings,
  /** Each started worker leases as its own owner: one started again after a crash frees the leases
   * of the one that died (releaseLeases keeps only its own). */
  owner: `${settings.owner}.${threadId}`,
  store,
  clock: systemPollClock,
  log,
  emit: (event) => served.emit(event),
})
// No message is read before this module has run: the handlers are in place for the first call.
Object.assign(handlers, engine.handlers)
const dispatcher = engine.dispatcher

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
