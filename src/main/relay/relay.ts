import { registerFollowerMetrics } from './follower-metrics'
import type { ListenerStatus } from '../../shared/contract/events'
import { authorizationRequestType } from '../../shared/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { createStorageHealth, failureFrom } from '../db'
import type { StorageHealth } from '../db'
import type { StorageStatus } from '../../shared/contract/storage'
import { Emitter } from '../../shared/emitter'
import type { Logger } from '../log'
import type { ObservedSecretStore } from '../secrets'
import { createIngest } from '../webhooks'
import { startListener } from '../webhooks'
import type { ListenerCounters, ListenerSettings } from '../webhooks'
import { loadSecretsCache } from '../webhooks'
import { ActivityWindow, LatencyWindow, recordNew } from '../webhooks'
import { createMeters, registerListenerTotals, registerStorageOk } from '../meters/registry'
import type { RelayStore } from './store'
import { logRetentionRun, startRetention } from '../db/retention'
import { registerRetentionMetrics } from '../db/retention-metrics'
import type { Retention } from '../db/retention'
import type { RetentionConfig } from '../../shared/config'
import type { Registry } from 'prom-client'
import { stalledCode } from './store'
import { startSyncServer } from './sync-server'
import { exposureWarnings } from './exposure'
import type { SyncServerSettings, SyncStreamStats } from './sync-server'

export interface RelayOptions {
  store: RelayStore
  secrets: ObservedSecretStore
  log: Logger
  listener: Pick<ListenerSettings, 'host' | 'port' | 'tls'> & Partial<ListenerSettings>
  sync: SyncServerSettings
  /** `retention.*` of the relay's config; without it, no retention runs. */
  retention?: () => RetentionConfig
}

export interface RunningRelay {
  listenerUrl: string
  syncUrl: string
  /** Said on stdout at start and in `/healthz` (a non-loopback bind without TLS). */
  warnings: string[]
  /** The sync API's open streams and change feed (tests, status). */
  streams(): SyncStreamStats
  status(): Promise<ListenerStatus>
  stop(): Promise<void>
}

const probeEveryMs = 2_000

/** `watchdesk relay`: the console's listener (verification, limits, dedup, 200 only after the
 * commit, conflicts, rejections) writing into a relay store, and the sync API beside it. Either
 * both run, or it returns why not and nothing is left listening. */
export async function startRelay(options: RelayOptions): Promise<Result<RunningRelay>> {
  const { store, log } = options
  const storage =
    store.kind === 'postgres'
      ? postgresHealth(store.where, log.child({ part: 'storage' }))
      : createStorageHealth(store.where.replace(/^sqlite:/, ''), log.child({ part: 'storage' }))
  const secrets = await loadSecretsCache(options.secrets, log)
  const counters: ListenerCounters = { accepted: 0, duplicates: 0, rejected: 0, conflicts: 0, unavailable: 0 }
  // GET /metrics on the sync port: this relay's own registry, never a process-wide one.
  const meters = createMeters()
  registerListenerTotals(meters, () => ({ listening: true, ...counters }))
  registerStorageOk(meters, () => storage.status().state === 'ok')
  const latency = new LatencyWindow()
  const authorizationLatency = new LatencyWindow()
  const activity = new ActivityWindow(Date.now())
  // The listener's connections, once it listens: a group that holds a delivery from each of them
  // goes at once (ingest's openConnections), so the group target can be larger than the
  // deliveries a closed-loop sender keeps in flight without holding its every round.
  let connections = () => Infinity
  const ingest = createIngest(
    store.committer,
    log,
    (summaries) => recordNew(activity, summaries),
    {
      committed: () => storage.committed(),
      failed: (failure) => storage.failed('relay commit', failure),
    },
    { openConnections: () => connections() },
  )
  const listener = await startListener(
    {
      maxBodyBytes: 1024 * 1024,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 10_000,
      authorizationAnswer: () => ({}),
      ...options.listener,
    },
    {
      ingest,
      secrets,
      counters,
      answered(ms, type) {
        latency.record(ms)
        if (type !== null) meters.committed(ms)
        if (type === authorizationRequestType) authorizationLatency.record(ms)
      },
      rejected(rejection) {
        meters.rejected(rejection.status)
        ingest.reject(rejection)
      },
    },
  )
  if (!listener.ok) {
    secrets.stop()
    return err('unavailable', listener.error.message)
  }
  connections = () => listener.value.connections()
  const status = async (): Promise<ListenerStatus> => ({
    listening: true,
    url: listener.value.url,
    problem: null,
    endpoints: secrets.endpoints(),
    secretsProblem: secrets.problem(),
    ...counters,
    latency: latency.summary(),
    authorizationLatency: authorizationLatency.summary(),
    activity: { ...activity.summary(Date.now()), relayedLastMinute: 0 },
    storage: storage.status(),
    // A stalled store must not hold up the status that says it is stalled.
    recentRejections: await within(store.recentRejections(50), 2_000, []),
    outages: [],
  })
  const warnings = exposureWarnings(options.listener.host, options.listener.tls !== undefined)
  const health = () => {
    const s = storage.status()
    return { ok: s.state === 'ok', storage: s.state, cause: s.cause, fix: s.fix, warnings }
  }
  const sync = await startSyncServer(
    store,
    status,
    options.sync,
    log,
    () => meters.registry.metrics(),
    health,
  )
  if (!sync.ok) {
    await listener.value.close()
    await ingest.drain()
    secrets.stop()
    return sync
  }
  registerFollowerMetrics(meters.registry, () => sync.value.streams())
  // While the store cannot commit, a small write probes every 2 s so the status (and the 503s)
  // clear by themselves once it can, without waiting for a delivery.
  let probing = false
  const probe = setInterval(() => {
    if (probing || storage.status().state === 'ok') return
    probing = true
    void store.committer
      .alive(null, Date.now())
      .then((failure) => (failure ? storage.failed('relay probe', failure) : storage.committed()))
      .finally(() => (probing = false))
  }, probeEveryMs)
  probe.unref()
  const retention = await startRelayRetention(options, meters.registry)
  for (const warning of warnings) log.warn(warning)
  log.info('relay started', {
    webhooks: `${listener.value.url}/webhooks`,
    sync: sync.value.url,
    store: store.where,
    wakeups: store.wakeups().mode,
    endpoints: secrets.endpoints().length,
  })
  return ok({
    listenerUrl: listener.value.url,
    syncUrl: sync.value.url,
    warnings,
    streams: () => sync.value.streams(),
    status,
    async stop() {
      retention?.stop()
      clearInterval(probe)
      await listener.value.close()
      await sync.value.close()
      await ingest.drain()
      secrets.stop()
    },
  })
}

/** `promise`, or `fallback` when it fails or has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))
  return Promise.race([promise.catch(() => fallback), late]).finally(() => clearTimeout(timer))
}

/** The storage status of a PostgreSQL store: the SQLite wording (disk, data dir) does not apply. */
function postgresHealth(where: string, log: Logger): StorageHealth {
  let status: StorageStatus = {
    state: 'ok',
    file: where,
    cause: null,
    fix: null,
    code: null,
    since: Date.now(),
    lastOkAt: null,
    failures: 0,
  }
  const changes = new Emitter<StorageStatus>({
    onListenerError: (error) => log.error('a store status subscriber failed', { error }),
  })
  const changed = () => changes.fire(status)
  return {
    status: () => status,
    failed(whereFailed, error) {
      const failure = failureFrom(error)
      const failures = status.failures + 1
      if (status.state !== 'ok' && status.code === failure.code) {
        status = { ...status, failures }
        return
      }
      // Past the commit deadline, or cancelled by statement_timeout: PostgreSQL answers nothing.
      const stalled = failure.code === stalledCode || failure.code === '57014'
      status = {
        ...status,
        state: stalled ? 'stalled' : 'failing',
        code: failure.code,
        cause: stalled
          ? `PostgreSQL at ${where} is stalled: ${failure.message}.`
          : `PostgreSQL at ${where} cannot commit (${failure.code ? `${failure.code}: ` : ''}${failure.message}).`,
        fix: stalled
          ? 'Check the PostgreSQL server: is it frozen or overloaded, is a lock held (pg_stat_activity), is its disk full? The relay answers 503 meanwhile (the service redelivers) and recovers by itself.'
          : 'Check that PostgreSQL runs and accepts this relay (URL, user, disk). The relay retries by itself and answers 503 meanwhile, so the service redelivers.',
        since: Date.now(),
        failures,
      }
      log.error('the store cannot commit', { where: whereFailed, cause: status.cause })
      changed()
    },
    committed() {
      const at = Date.now()
      if (status.state === 'ok') {
        status = { ...status, lastOkAt: at }
        return
      }
      log.info('the store commits again', { sinceMs: at - status.since })
      status = { ...status, state: 'ok', cause: null, fix: null, code: null, since: at, lastOkAt: at }
      changed()
    },
    onChange: changes.event,
  }
}

/** Retention on the relay's store, at start and every retention.intervalMinutes. */
async function startRelayRetention(options: RelayOptions, registry: Registry): Promise<Retention | null> {
  const target = options.store.retention
  const config = options.retention
  if (!target || !config) return null
  const log = options.log.child({ part: 'retention' })
  const retention = startRetention({
    config,
    target,
    initial: await target.load(),
    onRun: logRetentionRun(log),
  })
  registerRetentionMetrics(registry, () => retention.state())
  return retention
}
