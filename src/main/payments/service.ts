import type { Config } from '../../shared/config'
import type { PaymentsStatus, RateLimitState } from '../../shared/contract/payments'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import type { SecretStore } from '../secrets'
import { systemClock } from './clock'
import type { Clock } from './clock'
import { connectActiveKey } from './connect'
import { createWebhookEndpoints } from './endpoints'
import { createKeyRing } from './keys'
import { createRateLimits } from './rate-limits'
import { createPaymentsSettings } from './settings'
import { listWallets } from './wallets'
import { testKey } from './key-test'

export interface PaymentsDeps {
  config(): Config
  /** The operator's saved config (what `saveConfig` rewrites). */
  savedConfig(): Record<string, unknown>
  saveConfig(next: Record<string, unknown>): Promise<Result<Config>>
  secrets: SecretStore
  log: Logger
  env: NodeJS.ProcessEnv
  onRateLimit?(state: RateLimitState): void
  clock?: Clock
  fetch?: typeof fetch
}

export type PaymentsService = ReturnType<typeof createPaymentsService>

/** Keys, businesses, wallets and webhook endpoints over the one client, assembled from its
 * parts: settings (config keys), the key ring (keychain), rate limits (per-key limiters and the
 * published state), the connection to the active key, wallets and endpoints. Stateless but for
 * the rate limits, so the CLI and the app share the same code. */
export function createPaymentsService(deps: PaymentsDeps) {
  const clock = deps.clock ?? systemClock
  const log = deps.log.child({ part: 'payments' })
  const settings = createPaymentsSettings(deps, deps.env)
  const rateLimits = createRateLimits(clock, deps.onRateLimit)
  const keys = createKeyRing(deps.secrets, settings, rateLimits, log)
  const connectWith = (override: { keyName?: string; baseUrl?: string } = {}) =>
    connectActiveKey({ settings, keys, rateLimits, clock, log, fetch: deps.fetch }, override)
  const connect = () => connectWith()
  const endpoints = createWebhookEndpoints({ connect, config: settings.config, secrets: deps.secrets, log })

  async function status(): Promise<Result<PaymentsStatus>> {
    const keychain = await deps.secrets.status()
    const stored = await keys.stored()
    const list = stored.ok ? stored.value : []
    const active = keys.activeName(list.map((k) => k.name))
    const infos = list.map((k) => keys.describe(k, k.name === active))
    const activeKey = infos.find((k) => k.active) ?? null
    const config = settings.config()
    const business = settings.businessId()
    return ok({
      apiBaseUrl: config.apiBaseUrl ?? null,
      keychain: { reachable: stored.ok, message: stored.ok ? keychain.message : stored.error.message },
      keys: infos,
      activeKey,
      live: activeKey?.kind === 'live',
      businesses: config.businesses,
      selectedBusinessId: business.id,
      businessFromEnvironment: business.fromEnvironment,
      endpointPaths: config.webhookEndpoints,
      walletsRefreshMs: config.walletsRefreshMs,
      rateLimit: { ...rateLimits.state(), queued: activeKey ? rateLimits.queuedFor(activeKey.name) : 0 },
    })
  }

  return {
    status,
    setKey: keys.set,
    removeKey: keys.remove,
    selectKey: keys.select,
    setPlan: settings.setPlan,
    setBusinesses: settings.setBusinesses,
    setEndpointPaths: settings.setEndpointPaths,
    wallets: () => listWallets(connect),
    /** One GET /v1/wallets with the named key (or the active one), at this base URL (or apiBaseUrl). */
    testKey: (override: { keyName?: string; baseUrl?: string } = {}) =>
      testKey(connectWith, override, settings.config().apiBaseUrl),
    listEndpoints: endpoints.list,
    createEndpoint: endpoints.create,
    deleteEndpoint: endpoints.remove,
  }
}
