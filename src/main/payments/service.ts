import type { Config } from '../../shared/config'
import type { KeyInfo, KeyTest, PaymentsStatus, RateLimitState } from '../../shared/contract/payments'
import { maskSecret } from '../../shared/mask'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import type { SecretStore } from '../secrets'
import { systemClock } from './pace-clock'
import type { Clock } from './pace-clock'
import { connectActiveKey } from './connect'
import type { ConnectOverride } from './connect'
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
  /** Each answer's HTTP Date (the clock guard's reference, joined by the composer). */
  onDate?: (localMs: number, date: string) => void
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
  const connectWith = (override: ConnectOverride = {}) =>
    connectActiveKey(
      { settings, keys, rateLimits, clock, log, fetch: deps.fetch, onDate: deps.onDate },
      override,
    )
  const connect = () => connectWith()
  const endpoints = createWebhookEndpoints({ connect, config: settings.config, secrets: deps.secrets, log })

  const endpointPaths = () => ({ listPath: settings.config().webhookEndpoints.listPath })

  /** Tests the key before it is stored (when apiBaseUrl is set): a key the service refuses is not
   * stored unless `keep`. The answer carries the test, null when there was nothing to test with. */
  async function setKey(
    name: string,
    key: string,
    activate = false,
    keep = false,
  ): Promise<Result<{ key: KeyInfo; test: KeyTest | null }>> {
    const checked = keys.check(name, key)
    if (!checked.ok) return checked
    const secret = checked.value
    const test = settings.config().apiBaseUrl
      ? await testKey(connectWith, { keyName: name, secret }, settings.config().apiBaseUrl, endpointPaths())
      : null
    const tested = test?.ok ? test.value : null
    if (tested?.refused && !keep) {
      const why =
        tested.status === 401
          ? `answered 401${tested.code ? ` (${tested.code})` : ''} to GET /v1/wallets`
          : `answered 403 to each call it was tried with (${tested.features.map((f) => f.scope).join(', ')})`
      return err(
        'unauthorized',
        `The service at ${tested.baseUrl} refused the key "${name}" (${maskSecret(secret)}): it ${why}. It was not stored. Check that the key is whole and meant for that service; to store it anyway: watchdesk keys set ${name} --keep (or tick "keep if refused" in Settings).`,
        { test: tested },
      )
    }
    const stored = await keys.set(name, secret, activate)
    if (!stored.ok) return stored
    return ok({ key: stored.value, test: tested })
  }

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
    setKey,
    removeKey: keys.remove,
    selectKey: keys.select,
    setPlan: settings.setPlan,
    setBusinesses: settings.setBusinesses,
    setEndpointPaths: settings.setEndpointPaths,
    wallets: () => listWallets(connect),
    /** One GET /v1/wallets with the named key (or the active one), at this base URL (or apiBaseUrl);
     * with `features`, each feature's scope too. */
    testKey: (override: ConnectOverride = {}, features = false) =>
      testKey(connectWith, override, settings.config().apiBaseUrl, features ? endpointPaths() : null),
    listEndpoints: endpoints.list,
    createEndpoint: endpoints.create,
    deleteEndpoint: endpoints.remove,
  }
}
