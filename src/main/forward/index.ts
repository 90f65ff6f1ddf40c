import { randomBytes } from 'node:crypto'
import type { Config, ForwardTargetConfig } from '../../shared/config'
import { configSecretValues, maskConfigSecrets } from '../../shared/config-secrets'
import type { EventFilter } from '../../shared/contract/events'
import type { EventForwarding, ForwardState, ForwardStatus } from '../../shared/contract/forward'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { systemPollClock } from '../../shared/clock'
import type { PollClock } from '../../shared/clock'
import type { AppContext } from '../context'
import type { ConditionSource } from '../contribution'
import { forwardConditions } from './conditions'
import type { Registry } from 'prom-client'
import type { Logger } from '../log'
import { redactFromLogs } from '../log'
import { accounts } from '../secrets'
import { filterClause } from '../db/event-filter'
import type { SecretStore } from '../secrets'
import type { AttemptReport, RelayAnswer } from './dispatcher'
import { forwardWorkerFile, startForwardInThread, startForwardWorker } from './host'
import type { DispatcherHandle, WorkerHostOptions } from './host'
import type { WorkerHealth } from '../workers'
import { openForwardStore } from './store'
import type { ForwardStore } from './store'
import { adhocTargetName, authorizerOf, resolveTargets } from './targets'
import type { AdhocTarget, Authorizer, ForwardTarget } from './targets'

export { enqueueOnCommit, followResyncHooks } from './sql'
export { adhocTargetName, authorizerOf } from './targets'
export type { AdhocTarget, ForwardTarget } from './targets'
export type { AttemptReport, RelayAnswer } from './dispatcher'
export type { TargetSettings } from './targets'
export { parsePatterns, typeMatches } from './patterns'
export { forwardStoreOn, openForwardStore } from './store'
export { createDispatcher } from './dispatcher'
export { resolveTargets } from './targets'

export type ReplayDestination = { target: string } | { url: string }

export interface ForwardService {
  status(): ForwardStatus
  event(id: string): Result<EventForwarding>
  states(ids: string[]): Record<string, ForwardState>
  replay(request: {
    ids?: string[]
    filter?: EventFilter
    destination: ReplayDestination
    limit?: number
  }): Result<{ queued: number; target: string }>
  replayEdited(
    id: string,
    body: string,
    destination: ReplayDestination,
  ): Result<{ queued: number; target: string }>
  setTarget(
    name: string,
    target: ForwardTargetConfig | null,
  ): Promise<Result<{ targets: Record<string, ForwardTargetConfig> }>>
  /** card.authorization.request, stored as `seq`: the authorizer's answer within
   * forward.authorizationBudgetMs, else null (the listener answers its fallback); the other
   * subscribed targets get it once as a notification. */
  relayAuthorization(seq: number, elapsedMs?: number): Promise<RelayAnswer | null>
  dispatcher: DispatcherHandle
  /** The listener's secrets changed (the secrets cache's change event, or it just started): pass
   * them on now. Given, not read back: the listener calls it while it starts, before the services
   * know it. */
  secretsChanged(secrets: ReadonlyMap<string, Buffer>): void
  /** The rules "forward target gone" and "forward worker crash loop", for the alerts' status loop. */
  conditions: ConditionSource
  /** Registers the queue depth and the failed attempts for `GET /metrics`. */
  metrics(registry: Registry): Promise<void>
  /** Lets the attempts under way finish; resolves with how many forwards stay queued. */
  stop(): Promise<number>
}

export interface ForwardOptions {
  /** `--forward-to URL` (repeatable) with --events and --forward-secret-env. */
  adhoc?: AdhocTarget[]
  clock?: PollClock
  /** This process holds the instance lock: leases left by a killed run are free at once. */
  exclusive?: boolean
  /** The listener's webhook secrets by endpoint id: the original X-Service-Signature of a stored
   * body is recomputed with them (it is the very header the service sent). */
  webhookSecrets: () => ReadonlyMap<string, Buffer>
  /** Run the dispatcher on this thread rather than in the forward worker (always so with `clock`). */
  inThread?: boolean
  onAttempt?: (report: AttemptReport) => void
  /** `onAttempt` wants only the failed attempts (the failure meter; no `listen` lines): delivered
   * ones then never cross from the forward worker to the listener's thread. */
  onlyFailedAttempts?: boolean
}

type ForwardContext = Pick<
  AppContext,
  | 'db'
  | 'config'
  | 'onConfigChange'
  | 'secrets'
  | 'log'
  | 'push'
  | 'committed'
  | 'storage'
  | 'saveConfig'
  | 'loadedConfig'
>

/** Reads `forward-secret:<name>` of each configured target (null where none is stored). */
export async function targetSecrets(
  secrets: SecretStore,
  names: string[],
  log: Logger,
): Promise<Map<string, string>> {
  const found = new Map<string, string>()
  for (const name of names) {
    const got = await secrets.get(accounts.forwardSecret(name))
    if (!got.ok) log.warn('forward secret unavailable; the original signature is passed through', { name })
    else if (got.value) {
      redactFromLogs(got.value)
      found.set(name, got.value)
    }
  }
  return found
}

/** The forwarder: outbox → dispatcher → attempts, off the listener's path (its own connection,
 * its own timers); the commit transaction enqueues with the `enqueueOnCommit` hook. */
export async function startForward(ctx: ForwardContext, options: ForwardOptions): Promise<ForwardService> {
  const log = ctx.log.child({ part: 'forward' })
  const store: ForwardStore = openForwardStore(ctx.db.name)
  const owner = randomBytes(8).toString('hex')
  const adhoc: AdhocTarget[] = [...(options.adhoc ?? [])]
  // A --forward-to URL's credentials are used for sending only: no log line shows them.
  for (const a of adhoc) for (const secret of configSecretValues(a.url)) redactFromLogs(secret)
  let targets: ForwardTarget[] = []
  // Failed attempts are counted here for /metrics, whether or not the caller wants the reports.
  let failedAttempts = 0
  const onAttempt = (report: AttemptReport) => {
    if (report.state !== 'delivered') failedAttempts++
    options.onAttempt?.(report)
  }
  const onStates = (states: Record<string, ForwardState>) => ctx.push.publish('forward.states', { states })
  const workerFile = options.inThread || options.clock ? null : forwardWorkerFile()
  const host: WorkerHostOptions = {
    file: ctx.db.name,
    owner,
    exclusive: options.exclusive ?? false,
    log,
    onAttempt,
    attempts: options.onAttempt && !options.onlyFailedAttempts ? 'all' : 'failed',
    onStates,
    storageFailed: (what, failure) => ctx.storage.failed(what, failure),
    counts: () => store.openCounts(),
  }
  const dispatcher: DispatcherHandle = workerFile
    ? startForwardWorker(workerFile, host)
    : startForwardInThread({ ...host, store, clock: options.clock ?? systemPollClock })
  // The webhook secrets the listener verified with: the original signature is recomputed with
  // them. Passed on when the secrets cache says they changed (services.ts wires its event here).
  const syncSecrets = () => dispatcher.setSecrets(options.webhookSecrets())
  let problem: string | null = null
  let authorizer: Authorizer = { name: null, warning: null }

  async function applyConfig(config: Config): Promise<void> {
    const secrets = await targetSecrets(ctx.secrets, Object.keys(config.forward.targets), log)
    targets = resolveTargets(config.forward, adhoc, secrets)
    try {
      store.syncRoutes(targets)
      problem = null
    } catch (error) {
      problem = `Forward routing could not be saved (${(error as Error).message}); new events are not queued for forwarding until the database takes writes.`
      ctx.storage.failed('forward routes', error)
    }
    const chosen = authorizerOf(config.forward, targets)
    if (chosen.warning && chosen.warning !== authorizer.warning) log.warn(chosen.warning)
    authorizer = chosen
    dispatcher.setTargets(targets, config.forward.maxAgeHours * 3_600_000, {
      authorizer: authorizer.name,
      probeMs: config.forward.probeSeconds * 1000,
    })
    syncSecrets()
    pushStatus()
  }

  let lastPushed = ''
  /** Pushes the status when it changed: the worker reports its own, config changes come here. */
  function pushStatus(): void {
    try {
      const next = status()
      const text = JSON.stringify(next)
      if (text !== lastPushed) ctx.push.publish('forward.status', next)
      lastPushed = text
    } catch (error) {
      log.error('pushing the forward status failed', { error })
    }
  }
  const offStatus = dispatcher.onStatus(pushStatus)

  await applyConfig(ctx.config())
  const offConfig = ctx.onConfigChange((config) => void applyConfig(config))
  const offSecrets = ctx.secrets.onChange((account) => {
    if (account.startsWith(accounts.forwardSecret(''))) void applyConfig(ctx.config())
  })
  // Woken by every committed batch (the lossless channel, not the screen's batched push). With no
  // target nothing was queued, so the forward worker is not woken (a thread hop per batch that the
  // ingest profile showed); adding a target re-reads the config, which syncs and wakes it.
  const offCommitted = ctx.committed.subscribe(() => {
    if (targets.length > 0) dispatcher.kick()
  })
  function status(): ForwardStatus {
    const worker = workerStatus(dispatcher.worker())
    return {
      targets: dispatcher.status(),
      authorizationBudgetMs: ctx.config().forward.authorizationBudgetMs,
      authorizationTarget: authorizer.name,
      authorizationWarning: authorizer.warning,
      problem: problem ?? crashLoopProblem(worker),
      worker,
    }
  }

  /** A replay destination as a target name; a URL becomes an ad hoc target of this run. */
  function destinationName(destination: ReplayDestination): Result<string> {
    if ('target' in destination) {
      const known = targets.some((t) => t.name === destination.target)
      return known
        ? ok(destination.target)
        : err(
            'not_found',
            `No forward target is named ${destination.target}. Add it in Settings (forward.targets), or replay to a URL.`,
          )
    }
    if (!/^https?:\/\//.test(destination.url))
      return err('bad_request', 'A replay URL must start with http:// or https://.')
    const name = adhocTargetName(destination.url)
    if (!targets.some((t) => t.name === name)) {
      // Receives replays only: an ad hoc target added here gets no new events.
      for (const secret of configSecretValues(destination.url)) redactFromLogs(secret)
      adhoc.push({ url: destination.url, replayOnly: true })
      void applyConfig(ctx.config())
    }
    return ok(name)
  }

  const writing = replayWriter(ctx, dispatcher)

  return {
    status,
    conditions: forwardConditions(status),
    metrics: async (registry) =>
      (await import('./metrics')).registerForwardMetrics(registry, status, () => failedAttempts),
    ...replayMethods(store, destinationName, writing),
    setTarget: (name, target) => saveTarget(ctx, name, target),
    relayAuthorization: (seq, elapsedMs = 0) => {
      // The budget counts from the delivery's arrival (its commit took part of it).
      const budget = Math.max(1, Math.round(ctx.config().forward.authorizationBudgetMs - elapsedMs))
      return dispatcher.relay(seq, budget)
    },
    secretsChanged: (secrets) => dispatcher.setSecrets(secrets),
    dispatcher,
    async stop() {
      offConfig.dispose()
      offSecrets.dispose()
      offCommitted.dispose()
      offStatus.dispose()
      let queued = 0
      try {
        queued = await dispatcher.stop()
      } catch (error) {
        log.warn('could not count the queued forwards', { error })
      }
      store.close()
      return queued
    },
  }
}

/** Runs a replay's queuing write, then wakes the dispatcher; a write the database refuses is a
 * storage fault and an answer saying to retry. */
function replayWriter(ctx: ForwardContext, dispatcher: DispatcherHandle) {
  return <T>(what: string, write: () => T): Result<T> => {
    try {
      const value = write()
      dispatcher.kick()
      return ok(value)
    } catch (error) {
      ctx.storage.failed(what, error)
      return err(
        'unavailable',
        `The replay could not be queued (${(error as Error).message}). Retry once the database takes writes.`,
      )
    }
  }
}

/** An event's forwards and attempts for its detail: the event and its forwards read in one
 * snapshot, so an event that retention removed meanwhile is "not found", never "no forwards". */
export function eventForwardingAnswer(
  store: Pick<ForwardStore, 'eventForwardingOf'>,
  id: string,
): Result<EventForwarding> {
  const forwarding = store.eventForwardingOf(id)
  return forwarding ? ok({ id, ...forwarding }) : err('not_found', `No stored event has the id ${id}.`)
}

/** Reading an event's forwards and queuing replays of stored events (the writes kick the dispatcher). */
function replayMethods(
  store: ForwardStore,
  destinationName: (destination: ReplayDestination) => Result<string>,
  writing: <T>(what: string, write: () => T) => Result<T>,
): Pick<ForwardService, 'event' | 'states' | 'replay' | 'replayEdited'> {
  return {
    event: (id) => eventForwardingAnswer(store, id),
    states: (ids) => store.statesOf(ids),
    replay({ ids, filter, destination, limit = 100_000 }) {
      const target = destinationName(destination)
      if (!target.ok) return target
      if (!ids && !filter) return err('bad_request', 'Say which events to replay: ids, or a filter.')
      const now = Date.now()
      return writing('forward replay', () => ({
        queued: (ids
          ? store.enqueueIds(ids, target.value, now)
          : store.enqueueFilter(filterClause(filter!), target.value, now, limit)
        ).length,
        target: target.value,
      }))
    },
    replayEdited(id, body, destination) {
      const target = destinationName(destination)
      if (!target.ok) return target
      const seq = store.seqOf(id)
      if (seq === null) return err('not_found', `No stored event has the id ${id}.`)
      try {
        JSON.parse(body)
      } catch (error) {
        return err(
          'bad_request',
          `The edited payload is not JSON (${(error as Error).message}). Fix it and send again.`,
        )
      }
      return writing('forward edited replay', () => ({
        queued: store.enqueueEdited(seq, Buffer.from(body, 'utf8'), target.value, Date.now()),
        target: target.value,
      }))
    },
  }
}

/** Adds, edits or removes a forward target in config.json through the one writer. */
async function saveTarget(
  ctx: ForwardContext,
  name: string,
  target: Parameters<ForwardService['setTarget']>[1],
): ReturnType<ForwardService['setTarget']> {
  const saved = ctx.loadedConfig().saved
  const forward = (saved.forward ?? {}) as Record<string, unknown>
  const targets = { ...((forward.targets ?? {}) as Record<string, unknown>) }
  if (target) targets[name] = withKeptHeaders(target, targets[name])
  else delete targets[name]
  const written = await ctx.saveConfig({ ...saved, forward: { ...forward, targets } })
  if (!written.ok) return written
  // Header values and URL credentials are write-only: the answer shows them masked.
  return ok({ targets: maskConfigSecrets(written.value.forward.targets) })
}

/** Settings' target form edits the URL, events and limits, not the headers: an edit without
 * `headers` keeps the saved ones (header values are secrets the form never holds). */
function withKeptHeaders(target: ForwardTargetConfig, saved: unknown): ForwardTargetConfig {
  if (target.headers !== undefined || typeof saved !== 'object' || saved === null) return target
  const headers = (saved as { headers?: unknown }).headers
  return headers === undefined ? target : { ...target, headers: headers as Record<string, string> }
}

/** The worker's restarts as forward.status shows them (a dispatcher on this thread never restarts). */
function workerStatus(health: WorkerHealth | null): ForwardStatus['worker'] {
  return {
    health: health?.crashLoop ? 'crash_loop' : 'ok',
    restartsLastMinute: health?.restarts ?? 0,
    lastError: health?.lastFailure?.message ?? null,
    lastErrorAt: health?.lastFailureAt ?? null,
  }
}

/** The sentence the Overview's forwarding tile and the strip show during a crash loop. */
function crashLoopProblem(worker: ForwardStatus['worker']): string | null {
  if (worker.health !== 'crash_loop') return null
  return `The forward worker stopped ${worker.restartsLastMinute} times in the last minute (${worker.lastError ?? 'no cause given'}): nothing is forwarded while it keeps stopping, and queued events stay queued. It is started again by itself; the log (part forward) has each failure; if it goes on, restart watchdesk and report the log lines.`
}
export { contribution } from './contribution'
