import { z } from 'zod'
import type { ChainHistory, ChainsSnapshot, RpcExchange } from '../../shared/contract/chains'
import type { Uptime } from '../../shared/contract/alerts'
import { explainEstimateGasError } from '../../shared/chains/rpc-errors'
import { chainInfo } from '../../shared/chains/registry'
import type { Disposable } from '../../shared/disposable'
import { Emitter } from '../../shared/emitter'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import { accounts } from '../secrets'
import { createChainHistory } from './history'
import type { ChainHistoryStore } from './history'
import type { Poller } from './poller'
import type { PollClock } from '../../shared/clock'
import type { TimeReferences } from '../../shared/time-references'
import { uidScrubber } from './configured'
import { createPoller } from './poller'
import { resolveTargets } from './targets'
import type { Registry } from 'prom-client'

export { createPoller, sortWorstFirst, backoffDelay } from './poller'
export type { Poller } from './poller'
export { resolveTargets } from './targets'
export { pollerFor, uidScrubber } from './configured'
export { testRpcBase } from './probe'
export { createRpcClient } from './rpc'
export { systemPollClock } from '../../shared/clock'
export type { PollClock } from '../../shared/clock'
export { createChainHistory } from './history'
export { testReference } from './reference-test'
export { readProjectUid } from './project-uid'
import { readProjectUid } from './project-uid'

export interface ChainsService {
  snapshot(): ChainsSnapshot
  history(serviceId: number, minutes: number): Result<ChainHistory>
  uptime(serviceId: number): Result<Uptime>
  /** Called after each poll round with the statuses (the alerts capability listens here). */
  onRound(listener: (snapshot: ChainsSnapshot) => void): Disposable
  rpc(serviceId: number, method: string, params: unknown[]): Promise<Result<RpcExchange>>
  /** Registers the chains' figures and poll counters for `GET /metrics`. */
  metrics(registry: Registry): Promise<void>
  stop(): Promise<void>
}

const compactEveryMs = 5 * 60_000

export async function startChainsService(
  ctx: AppContext,
  clock?: PollClock,
  /** The clock guard's port (the composer joins it): block stamps out, the correction in. */
  timeRefs?: TimeReferences,
): Promise<ChainsService> {
  const history = createChainHistory(ctx.db, { storage: ctx.storage, flushEveryMs: 30_000 })
  const log = ctx.log.child({ capability: 'chains' })
  const rounds = new Emitter<ChainsSnapshot>({
    onListenerError: (error) => log.error('a chains round listener failed', { error }),
  })
  let poller: Poller | null = null
  let lastCompact = 0
  let generation = 0

  const onRound =
    (history: ChainHistoryStore) =>
    (snapshot: ChainsSnapshot, samples: Parameters<ChainHistoryStore['record']>[0]) => {
      ctx.push.publish('chains.status', snapshot)
      try {
        history.record(samples)
        const now = clock?.now() ?? Date.now()
        if (now - lastCompact > compactEveryMs) {
          lastCompact = now
          history.compact(now)
        }
      } catch (error) {
        ctx.storage.failed('chain samples', error)
        log.error('could not store chain samples', { error })
      }
      rounds.fire(snapshot)
    }

  // One poller for the life of the service: a config edit or a new project uid reconfigures the
  // chains it concerns and keeps their state (issue 29: a restart was announced as a recovery).
  let scrubber = { uid: null as string | null, scrub: uidScrubber(null) }
  const scrubFor = (uid: string | null) =>
    scrubber.uid === uid ? scrubber.scrub : (scrubber = { uid, scrub: uidScrubber(uid) }).scrub

  async function reconfigure(reason: string) {
    const mine = ++generation
    const { uid, problem } = await readProjectUid(ctx.secrets)
    if (mine !== generation) return
    if (problem) log.warn('project uid unavailable', { problem })
    const targets = resolveTargets(ctx.config(), uid, problem)
    if (!poller) {
      poller = createPoller({ targets, scrub: scrubFor(uid), onRound: onRound(history), clock, timeRefs })
      poller.start()
      const polled = poller.snapshot().chains.filter((c) => c.status !== 'not_configured').length
      return log.info('chains poller started', { reason, polled })
    }
    const changed = poller.reconfigure(targets, scrubFor(uid))
    if (changed.length > 0) log.info('chains reconfigured', { reason, changed })
  }

  await reconfigure('start')
  const offConfig = ctx.onConfigChange(() => void reconfigure('config changed'))
  const offSecrets = ctx.secrets.onChange((account) => {
    if (account === accounts.projectUid) void reconfigure('project uid changed')
  })

  return {
    snapshot: () => poller!.snapshot(),
    history(serviceId, minutes) {
      if (!chainInfo(serviceId))
        return err('not_found', `There is no chain with the service id ${serviceId}.`)
      return ok(history.history(serviceId, minutes))
    },
    uptime(serviceId) {
      if (!chainInfo(serviceId))
        return err('not_found', `There is no chain with the service id ${serviceId}.`)
      try {
        return ok(history.uptime(serviceId, clock?.now() ?? Date.now()))
      } catch (error) {
        ctx.storage.failed('chain uptime', error)
        return err('unavailable', `The uptime could not be read: ${(error as Error).message}`)
      }
    },
    onRound: rounds.event,
    metrics: async (registry) =>
      (await import('./metrics')).registerChainMetrics(registry, {
        snapshot: () => poller!.snapshot(),
        onRound: rounds.event,
      }),
    async rpc(serviceId, method, params) {
      const monitor = poller?.monitor(serviceId)
      if (!monitor) return err('not_found', `There is no chain with the service id ${serviceId}.`)
      const client = monitor.rpc()
      if (!client)
        return err('bad_request', `${monitor.target.info.name} is not configured: ${monitor.status().reason}`)
      const checked = checkParams(method, params)
      if (!checked.ok) return checked
      const exchange = await client.call({ method, params: checked.value })
      const failure = exchange.outcome.ok ? null : exchange.outcome.error
      return ok({
        endpoint: monitor.target.endpoint ?? '',
        request: exchange.request,
        response: exchange.response,
        httpStatus: exchange.httpStatus,
        elapsedMs: Math.round(exchange.elapsedMs * 10) / 10,
        error: failure,
        explanation:
          failure && failure.kind === 'rpc' && method === 'eth_estimateGas'
            ? explainEstimateGasError({ code: failure.code ?? 0, message: failure.message }).text
            : null,
      })
    },
    async stop() {
      generation++
      offConfig.dispose()
      offSecrets.dispose()
      poller?.stop()
      history.flush()
    },
  }
}

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'an address is 0x and 40 hex digits')
const EstimateGasParams = z.tuple([
  z
    .object({
      from: address,
      to: address,
      value: z.string().regex(/^0x[0-9a-fA-F]+$/, 'value is a 0x-prefixed hex quantity'),
    })
    .strict(),
])

function checkParams(method: string, params: unknown[]): Result<unknown[]> {
  if (method !== 'eth_estimateGas') {
    return params.length === 0 ? ok([]) : err('bad_request', `${method} takes no parameters.`)
  }
  const parsed = EstimateGasParams.safeParse(params)
  if (!parsed.success) {
    return err('bad_request', `eth_estimateGas takes [{ from, to, value }]: ${z.prettifyError(parsed.error)}`)
  }
  return ok(parsed.data)
}
export { contribution } from './contribution'
export { latestChainSamples } from './read-ports'
export type { ChainSampleRow } from './read-ports'
