import type { ListenerStatus } from '../../shared/contract/events'
import { authorizationRequestType } from '../../shared/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { createStorageHealth } from '../db'
import type { Logger } from '../log'
import type { ObservedSecretStore } from '../secrets'
import { createIngest } from '../webhooks/ingest'
import { startListener } from '../webhooks/listener'
import type { ListenerCounters, ListenerSettings } from '../webhooks/listener'
import { loadSecretsCache } from '../webhooks/secrets-cache'
import { LatencyWindow } from '../webhooks/stats'
import type { RelayStore } from './store'
import { startSyncServer } from './sync-server'
import type { SyncServerSettings } from './sync-server'

export interface RelayOptions {
  store: RelayStore
  secrets: ObservedSecretStore
  log: Logger
  listener: Pick<ListenerSettings, 'host' | 'port' | 'tls'> & Partial<ListenerSettings>
  sync: SyncServerSettings
}

export interface RunningRelay {
  listenerUrl: string
  syncUrl: string
  status(): Promise<ListenerStatus>
  stop(): Promise<void>
}

const probeEveryMs = 2_000

/** `watchdesk relay`: the console's listener (verification, limits, dedup, 200 only after the
 * commit, conflicts, rejections) writing into a relay store, and the sync API beside it. Either
 * both run, or it returns why not and nothing is left listening. */
export async function startRelay(options: RelayOptions): Promise<Result<RunningRelay>> {
  const { store, log } = options
  const storage = createStorageHealth(store.where, log.child({ part: 'storage' }))
  const secrets = await loadSecretsCache(options.secrets, log)
  const counters: ListenerCounters = { accepted: 0, duplicates: 0, rejected: 0, conflicts: 0, unavailable: 0 }
  const latency = new LatencyWindow()
  const authorizationLatency = new LatencyWindow()
  const ingest = createIngest(store.committer, log, () => {}, {
    committed: () => storage.committed(),
    failed: (failure) => storage.failed('relay commit', failure),
  })
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
        if (type === authorizationRequestType) authorizationLatency.record(ms)
      },
      rejected: (rejection) => ingest.reject(rejection),
    },
  )
  if (!listener.ok) {
    secrets.stop()
    return err('unavailable', listener.error.message)
  }
  const status = async (): Promise<ListenerStatus> => ({
    listening: true,
    url: listener.value.url,
    problem: null,
    endpoints: secrets.endpoints(),
    secretsProblem: secrets.problem(),
    ...counters,
    latency: latency.summary(),
    authorizationLatency: authorizationLatency.summary(),
    storage: storage.status(),
    recentRejections: await store.recentRejections(50).catch(() => []),
    outages: [],
  })
  const sync = await startSyncServer(store, status, options.sync, log)
  if (!sync.ok) {
    await listener.value.close()
    await ingest.drain()
    secrets.stop()
    return sync
  }
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
  log.info('relay started', {
    webhooks: `${listener.value.url}/webhooks`,
    sync: sync.value.url,
    store: store.where,
    endpoints: secrets.endpoints().length,
  })
  return ok({
    listenerUrl: listener.value.url,
    syncUrl: sync.value.url,
    status,
    async stop() {
      clearInterval(probe)
      await listener.value.close()
      await sync.value.close()
      await ingest.drain()
      secrets.stop()
    },
  })
}
