import { randomBytes } from 'node:crypto'
import type { ListenerStatus } from '../../shared/contract/events'
import type { Disposable } from '../../shared/disposable'
import type { PublicUrlState, TestDelivery } from '../../shared/contract/payments'
import { authorizationRequestType } from '../../shared/events'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import type { CommitHook } from '../db'
import type { Logger } from '../log'
import type { PruneReply, PruneStatement } from './commit-protocol'
import { workerCommitter } from './committer'
import type { Committer } from './committer'
import { createIngest } from './ingest'
import type { Ingest } from './ingest'
import { startListener } from './listener'
import type { ListenerCounters, ListenerHooks, ListenerProblem, ListenerSettings } from './listener'
import { loadSecretsCache } from './secrets-cache'
import type { SecretsCache } from './secrets-cache'
import type { SentTestEvent } from './send'
import { ActivityWindow, LatencyWindow, recordNew } from './stats'
import { createEventStore } from './store'
import type { EventStore } from './store'
import { checkPublicUrl, sendTest, sendThrough } from './test-deliveries'
import type { TestDeliveryDeps } from './test-deliveries'
import { createBatchedPublisher as batchedPublisher } from './ingest'
import type { ServiceMetrics } from '../contribution'
import type { Retention, RetentionRules } from '../db/retention'
import { logRetentionRun, readRetentionState, sqliteRetentionTarget, startRetention } from '../db/retention'

export { sendTestEvent, sampleEnvelope } from './send'
export { listenerIdentityHeader, probe, explainFailure } from './public-url'
export { startPublicUrlWatch } from './public-url-watch'
export type { PublicUrlWatch } from './public-url-watch'
export type { SendTestEventOptions, SentTestEvent } from './send'
export { signBody, verifySignature, parseEnvelope } from './verify'
export type { Envelope } from './verify'
export { createEventStore, filterClause } from './store'
export type { EventData, EventHead, EventStore } from './store'
// Parts a receiver is built from (the relay: the same listener, ingest and commit path over another store).
export { createIngest, createBatchedPublisher } from './ingest'
export { startListener } from './listener'
export type { ListenerCounters, ListenerProblem, ListenerSettings } from './listener'
export { loadSecretsCache } from './secrets-cache'
export { ActivityWindow, LatencyWindow, recordNew } from './stats'
export { committedResultOf, resultOf, workerCommitter } from './committer'
export type { CommitResult, Committer } from './committer'
export type { CommitReply, CommittedItem, ItemResult, PruneReply, StorageFailure } from './commit-protocol'
export type { CommittedRow, EventParams, EventRow } from './sql'
export { parseTime, toDetail, toSummary } from './store'
export type { DetailRow } from './store'

/** The listener's address as it is now. */
export interface ListenerAddress {
  /** Base URL while it listens (`http://127.0.0.1:7421`); webhooks go to `<url>/webhooks`. */
  url: string | null
  /** Why it could not start (port taken, TLS files unreadable), with the fix; null while it
   * listens and after it stopped. */
  problem: ListenerProblem | null
}

export interface WebhookService {
  store: EventStore
  /** Where the listener listens, or why it does not: asked of the listener (its one writer). */
  address(): ListenerAddress
  status(): ListenerStatus
  /** Signs a sample event with a configured secret (that endpoint's, or the first) and posts it here. */
  sendTest(type: string, endpoint?: string): Promise<Result<SentTestEvent & { endpoint: string }>>
  /** The secrets deliveries are verified with, by endpoint id (for the forwarder, which passes the
   * service's signature through by recomputing it; never shown or logged). */
  webhookSecrets(): ReadonlyMap<string, Buffer>
  /** Called when those secrets changed (the forwarder re-signs with them). */
  onSecretsChange(listener: () => void): Disposable
  /** Signs a test event with the endpoint's secret and posts it to the public URL (the tunnel or
   * reverse proxy in front of this listener), as the service would; `arrivedAt` is set only when
   * that very event (its id) was stored here. */
  sendThrough(
    publicUrl: string,
    type: string,
    endpoint: string,
    env?: NodeJS.ProcessEnv,
  ): Promise<TestDelivery>
  /** Whether the public URL reaches this listener now (a HEAD answered with its identity). */
  checkPublicUrl(publicUrl: string, env?: NodeJS.ProcessEnv): Promise<PublicUrlState>
  /** A retention batch through the commit worker, between commits (src/main/db/retention.ts). */
  prune(statements: PruneStatement[]): Promise<PruneReply>
  stop(): Promise<void>
}

export interface WebhookOptions {
  /** `--listener-port`, over `listener.port`. */
  port?: number
  /** Run in the commit transaction after each event (the forward outbox's enqueue). */
  hooks?: readonly CommitHook[]
  relayAuthorization?: ListenerHooks['relayAuthorization']
}

const aliveEveryMs = 15_000
const origin = { kind: 'listener' } as const
const probeEveryMs = 2_000

/** Listener → verify → deduplicate → group commit → push, for the app and serve mode. The store
 * and the committer always start; a listener that cannot bind (port taken, TLS files missing)
 * becomes a status (`listening: false` with the problem), so the rest of the console still runs. */
export async function startWebhooks(ctx: AppContext, options: WebhookOptions = {}): Promise<WebhookService> {
  const log = ctx.log.child({ part: 'webhooks' })
  const store = createEventStore(ctx.db)
  const secrets = await loadSecretsCache(ctx.secrets, log, {
    retiredForMs: () => ctx.config().listener.retiredSecretHours * 3_600_000,
  })
  const stats = createListenerStats(ctx, store)
  const { committer, ingest } = startCommitPath(ctx, log, options, stats)
  const identity = randomBytes(12).toString('hex')
  const listener = await startListener(
    listenerSettings(ctx, options, identity),
    listenerHooks(ctx, log, { ingest, secrets, stats, relayAuthorization: options.relayAuthorization }),
  )
  const running = listener.ok ? listener.value : null
  // The one writer of the listener's address: set here and at stop; everyone else asks.
  let address: ListenerAddress = listener.ok
    ? { url: listener.value.url, problem: null }
    : { url: null, problem: listener.error }
  const runs = trackRuns(ctx, store, running !== null)
  const status = () => listenerStatus(ctx, address, { secrets, stats, store })
  const alive = keepMarkingAlive(ctx, committer, runs)
  const pushing = pushStatusOnChange(ctx, log, stats, status)
  if (running)
    log.info('webhook listener started', { url: address.url, endpoints: secrets.endpoints().length })
  else
    log.error('webhook listener not running; stored events stay available', {
      problem: address.problem?.message,
    })
  const deliveries: TestDeliveryDeps = { address: () => address, secrets, store, identity }
  return {
    store,
    address: () => address,
    status,
    webhookSecrets: () => secrets.all(),
    onSecretsChange: (listener) => secrets.onChange(listener),
    prune: (statements) => committer.prune!(statements),
    sendTest: (type, endpoint) => sendTest(deliveries, type, endpoint),
    sendThrough: (publicUrl, type, endpoint, env) => sendThrough(deliveries, publicUrl, type, endpoint, env),
    checkPublicUrl: (publicUrl, env) => checkPublicUrl(deliveries, publicUrl, env),
    async stop() {
      alive.stop()
      pushing.stop()
      await running?.close()
      await ingest.drain()
      await committer.close()
      secrets.stop()
      runs.stop()
      address = { url: null, problem: null }
    },
  }
}

/** The listener's figures for its status, and whether one changed since the status was pushed. */
interface ListenerStats {
  counters: ListenerCounters
  latency: LatencyWindow
  authorizationLatency: LatencyWindow
  activity: ActivityWindow
  /** The relay sources' share of `activity` (every origin counts toward events/min). */
  relayed: ActivityWindow
  changed: boolean
}

function createListenerStats(ctx: AppContext, store: EventStore): ListenerStats {
  const stats: ListenerStats = {
    counters: { accepted: 0, duplicates: 0, rejected: 0, conflicts: 0, unavailable: 0 },
    latency: new LatencyWindow(),
    authorizationLatency: new LatencyWindow(),
    activity: new ActivityWindow(Date.now()),
    relayed: new ActivityWindow(Date.now()),
    changed: false,
  }
  // Seeded before the listener starts, so no event is counted twice; a restart keeps the hour's counts.
  try {
    const seedFrom = Date.now() - 3_600_000
    stats.activity.seed(store.receivedPerSecond(seedFrom), seedFrom)
  } catch (error) {
    ctx.storage.failed('listener activity', error)
  }
  return stats
}

/** The commit worker and the ingest over it. Committed batches go to the committed-events channel
 * (lossless); the screen's push is one of its subscribers. */
function startCommitPath(
  ctx: AppContext,
  log: Logger,
  options: WebhookOptions,
  stats: ListenerStats,
): { committer: Committer; ingest: Ingest } {
  const committer = workerCommitter(ctx.db.name, {
    hooks: options.hooks,
    onRestart: (failure) => log.warn('commit worker stopped; starting it again', { ...failure }),
    log,
  })
  const ingest = createIngest(
    committer,
    log,
    (events) => (recordNew(stats.activity, events), ctx.committed.publish({ origin, events })),
    {
      committed: () => ctx.storage.committed(),
      failed: (failure) => ctx.storage.failed('webhook commit', failure),
    },
  )
  return { committer, ingest }
}

function listenerSettings(ctx: AppContext, options: WebhookOptions, identity: string): ListenerSettings {
  const config = ctx.config().listener
  return {
    host: config.host,
    port: options.port ?? config.port,
    maxBodyBytes: config.maxBodyBytes,
    headersTimeoutMs: config.headersTimeoutMs,
    bodyTimeoutMs: config.bodyTimeoutMs,
    maxConnections: config.maxConnections,
    maxBodyBytesInFlight: config.maxBodyBytesInFlight,
    tls: config.tls,
    authorizationAnswer: () => ctx.config().listener.authorizationAnswer,
    identity,
  }
}

/** Each answer and rejection counted, timed and metered. */
function listenerHooks(
  ctx: AppContext,
  log: Logger,
  parts: {
    ingest: Ingest
    secrets: SecretsCache
    stats: ListenerStats
    relayAuthorization: WebhookOptions['relayAuthorization']
  },
): ListenerHooks {
  const { ingest, stats } = parts
  return {
    ingest,
    secrets: parts.secrets,
    counters: stats.counters,
    relayAuthorization: parts.relayAuthorization,
    answered(ms, type) {
      stats.latency.record(ms)
      if (type !== null) ctx.meters.committed(ms)
      if (type === authorizationRequestType) stats.authorizationLatency.record(ms)
      stats.changed = true
    },
    rejected(rejection) {
      ctx.meters.rejected(rejection.status)
      ingest.reject(rejection)
      stats.changed = true
      log.debug('webhook rejected', { ...rejection })
    },
  }
}

/** A run marks when the listener was up, for the outages (and expected redeliveries) view. On a
 * full disk it is recorded later (`start` again), once the database takes writes again. */
interface Runs {
  current(): number | null
  start(): void
  stop(): void
}

function trackRuns(ctx: AppContext, store: EventStore, listening: boolean): Runs {
  let run: number | null = null
  const start = () => {
    if (!listening || run !== null) return
    try {
      run = store.startRun(Date.now())
    } catch (error) {
      ctx.storage.failed('listener run start', error)
    }
  }
  start()
  return {
    current: () => run,
    start,
    stop() {
      try {
        if (run !== null) store.stopRun(run, Date.now())
      } catch (error) {
        ctx.storage.failed('listener run stop', error)
      }
    },
  }
}

function listenerStatus(
  ctx: AppContext,
  address: ListenerAddress,
  parts: { secrets: SecretsCache; stats: ListenerStats; store: EventStore },
): ListenerStatus {
  const { secrets, stats, store } = parts
  const reading = <T>(what: string, read: () => T, fallback: T): T => {
    try {
      return read()
    } catch (error) {
      ctx.storage.failed(what, error)
      return fallback
    }
  }
  return {
    listening: address.url !== null,
    url: address.url,
    problem: address.problem?.message ?? null,
    endpoints: secrets.endpoints(),
    secretsProblem: secrets.problem(),
    ...stats.counters,
    latency: stats.latency.summary(),
    authorizationLatency: stats.authorizationLatency.summary(),
    activity: {
      ...stats.activity.summary(Date.now()),
      relayedLastMinute: stats.relayed.summary(Date.now()).lastMinute,
    },
    storage: ctx.storage.status(),
    recentRejections: reading('listener rejections', () => store.recentRejections(50), []),
    outages: reading('listener outages', () => store.outages(10, 2_000), []),
  }
}

/** Every 15 s the run is marked alive through the worker (no fsync on this thread); while the
 * database cannot commit, the same small write probes every 2 s, so the status turns back to ok
 * (and the listener to 200s) within seconds of the disk or the lock freeing, without a delivery. */
function keepMarkingAlive(ctx: AppContext, committer: Committer, runs: Runs): { stop(): void } {
  let lastMark = Date.now()
  let marking = false
  const timer = setInterval(() => {
    const now = Date.now()
    const faulted = ctx.storage.status().state !== 'ok'
    if (marking || now - lastMark < (faulted ? probeEveryMs : aliveEveryMs)) return
    marking = true
    lastMark = now
    void committer
      .alive(runs.current(), now)
      .then((failure) => {
        if (failure) return ctx.storage.failed('listener alive mark', failure)
        ctx.storage.committed()
        runs.start()
      })
      .finally(() => (marking = false))
  }, probeEveryMs / 2)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}

/** Pushes the status when something changed. Counts of the last minute and hour fall as time
 * passes, with no delivery to mark a change: they are compared each second too, so a quiet
 * listener never shows an old rate as current. */
function pushStatusOnChange(
  ctx: AppContext,
  log: Logger,
  stats: ListenerStats,
  status: () => ListenerStatus,
): { stop(): void } {
  const offStorage = ctx.storage.onChange(() => (stats.changed = true))
  // Events synced from relay sources count toward events/min too (the listener's own are counted
  // on its commit path), labelled apart.
  const offRelayed = ctx.committed.subscribe((batch) => {
    if (batch.origin.kind === 'listener') return
    recordNew(stats.activity, batch.events)
    recordNew(stats.relayed, batch.events)
  })
  let pushedCounts = ''
  const timer = setInterval(() => {
    const a = stats.activity.summary(Date.now())
    const counts = `${a.lastMinute}/${a.lastHour}`
    if (!stats.changed && counts === pushedCounts) return
    stats.changed = false
    pushedCounts = counts
    try {
      ctx.push.publish('events.listener', status())
    } catch (error) {
      log.error('pushing the listener status failed', { error })
    }
  }, 1000)
  timer.unref()
  return {
    stop() {
      offStorage.dispose()
      offRelayed.dispose()
      clearInterval(timer)
    },
  }
}
/** What the console's listener needs of the others (services.ts wires them). */
export interface ConsoleWebhookNeeds extends WebhookOptions {
  /** Every capability's retention rules (contributions.ts), applied through the commit worker. */
  retentionRules: Required<RetentionRules>
  /** Told at start and whenever the webhook secrets changed (the forwarder re-signs with them). */
  secretsChanged(secrets: ReadonlyMap<string, Buffer>): void
}

/** The console's listener and store, with what hangs on them: the screen's batched push of new
 * events, retention through the commit worker (the one writer), the forwarder told of new secrets. */
export type ConsoleWebhookService = WebhookService & ServiceMetrics

export async function startConsoleWebhooks(
  ctx: AppContext,
  needs: ConsoleWebhookNeeds,
): Promise<ConsoleWebhookService> {
  // The screen's push is one subscriber of the committed-events channel: batched per 150 ms for
  // the views (newest kept on overflow, with the count left out); alerts and forward subscribe apart.
  const screen = batchedPublisher((payload) => ctx.push.publish('events.appended', payload))
  const offScreen = ctx.committed.subscribe((batch) => screen.add(batch.events.map((e) => e.summary)))
  // Never fails the start: a listener that cannot bind is reported in its status.
  const webhooks = await startWebhooks(ctx, needs)
  needs.secretsChanged(webhooks.webhookSecrets())
  const offSecrets = webhooks.onSecretsChange(() => needs.secretsChanged(webhooks.webhookSecrets()))
  const retention = startConsoleRetention(ctx, webhooks, needs.retentionRules)
  return {
    ...webhooks,
    metrics: async (registry) =>
      (await import('../db/retention-metrics')).registerRetentionMetrics(registry, () => retention.state()),
    stop: async () => {
      retention.stop()
      offSecrets.dispose()
      await webhooks.stop()
      offScreen.dispose()
      screen.stop()
    },
  }
}

/** Retention over the console's database, through the commit worker (the one writer). */
function startConsoleRetention(
  ctx: AppContext,
  webhooks: WebhookService,
  rules: Required<RetentionRules>,
): Retention {
  return startRetention({
    config: () => ctx.config().retention,
    target: sqliteRetentionTarget(rules, async (statements) => {
      const done = await webhooks.prune(statements)
      return done.ok ? done : { ok: false, message: done.failure.message }
    }),
    initial: readRetentionState(ctx.db),
    onRun: logRetentionRun(ctx.log.child({ part: 'retention' })),
  })
}

export { contribution } from './contribution'
export { eventReads } from './read-ports'
export type { EventReads } from './read-ports'
