import type { Config } from '../../shared/config'
import type {
  CreatedEndpoint,
  PaymentsStatus,
  RateLimitState,
  WalletsResult,
  WebhookEndpoint,
  KeyInfo,
} from '../../shared/contract/payments'
import { maskSecret } from '../../shared/mask'
import {
  checkEndpointInput,
  checkKeyName,
  findList,
  keyKindOf,
  limitsOf,
  validPrefixesSentence,
  walletTable,
} from '../../shared/payments'
import type { EndpointInput, PlanOverride } from '../../shared/payments'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import { redactFromLogs } from '../log'
import { accounts } from '../secrets'
import type { SecretStore } from '../secrets'
import { createPaymentsClient } from './client'
import type { ApiKey, PaymentsClient } from './client'
import { systemClock } from './clock'
import type { Clock } from './clock'
import { createLimiter } from './limiter'
import type { Limiter } from './limiter'

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

const envKeyName = 'env'

/** Keys, businesses, wallets and webhook endpoints over the one client. Stateless but for the
 * per-key limiters and the rate-limit state, so the CLI and the app share the same code. */
export function createPaymentsService(deps: PaymentsDeps) {
  const clock = deps.clock ?? systemClock
  const log = deps.log.child({ part: 'payments' })
  const limiters = new Map<string, Limiter>()
  let rateLimit: RateLimitState = {
    keyName: null,
    masked: null,
    queued: 0,
    limitedUntil: null,
    last429At: null,
    count429: 0,
  }

  const publishRateLimit = (next: Partial<RateLimitState>) => {
    rateLimit = { ...rateLimit, ...next }
    deps.onRateLimit?.(rateLimit)
  }

  async function storedKeys(): Promise<
    Result<{ name: string; secret: string; source: KeyInfo['source'] }[]>
  > {
    const listed = await deps.secrets.list()
    if (!listed.ok) return listed
    return ok(
      listed.value
        .filter((e) => accounts.isApiKey(e.account))
        .map((e) => ({ name: accounts.nameOf(e.account), secret: e.secret, source: e.source }))
        .sort((a, b) =>
          a.name === envKeyName ? -1 : b.name === envKeyName ? 1 : a.name.localeCompare(b.name),
        ),
    )
  }

  function activeName(names: string[]): string | null {
    if (names.includes(envKeyName)) return envKeyName
    const chosen = deps.config().apiKeyName
    if (chosen && names.includes(chosen)) return chosen
    return names.length === 1 ? names[0]! : null
  }

  function keyInfo(name: string, secret: string, source: KeyInfo['source'], active: boolean): KeyInfo {
    redactFromLogs(secret)
    const kind = keyKindOf(secret)
    const plan = kind.ok ? limitsOf(kind.value, deps.config().apiKeyPlans[name]) : null
    return {
      name,
      masked: maskSecret(secret),
      kind: kind.ok ? kind.value : null,
      source,
      plan: plan?.plan ?? null,
      perMinute: plan?.limits.perMinute ?? null,
      perSecond: plan?.limits.perSecond ?? null,
      planInferred: plan?.inferred ?? false,
      active,
      problem: kind.ok ? null : `This stored value is not an API key. ${validPrefixesSentence}`,
    }
  }

  function businessId(): { id: string | null; fromEnvironment: boolean } {
    const fromEnv = deps.env.WATCHDESK_BUSINESS_ID?.trim()
    if (fromEnv) return { id: fromEnv, fromEnvironment: true }
    return { id: deps.config().selectedBusinessId ?? null, fromEnvironment: false }
  }

  async function status(): Promise<Result<PaymentsStatus>> {
    const keychain = await deps.secrets.status()
    const keys = await storedKeys()
    const list = keys.ok ? keys.value : []
    const active = activeName(list.map((k) => k.name))
    const infos = list.map((k) => keyInfo(k.name, k.secret, k.source, k.name === active))
    const activeKey = infos.find((k) => k.active) ?? null
    const config = deps.config()
    const business = businessId()
    return ok({
      apiBaseUrl: config.apiBaseUrl ?? null,
      keychain: { reachable: keys.ok, message: keys.ok ? keychain.message : keys.error.message },
      keys: infos,
      activeKey,
      live: activeKey?.kind === 'live',
      businesses: config.businesses,
      selectedBusinessId: business.id,
      businessFromEnvironment: business.fromEnvironment,
      endpointPaths: config.webhookEndpoints,
      walletsRefreshMs: config.walletsRefreshMs,
      rateLimit: { ...rateLimit, queued: activeKey ? (limiters.get(activeKey.name)?.queued ?? 0) : 0 },
    })
  }

  async function saveKeys(patch: Record<string, unknown>): Promise<Result<void>> {
    const saved = await deps.saveConfig({ ...deps.savedConfig(), ...patch })
    return saved.ok ? ok(undefined) : saved
  }

  async function setKey(name: string, key: string, activate = false): Promise<Result<KeyInfo>> {
    const checked = checkKeyName(name)
    if (!checked.ok) return checked
    const secret = key.trim()
    const kind = keyKindOf(secret)
    if (!kind.ok) return kind
    redactFromLogs(secret)
    const stored = await deps.secrets.set(accounts.apiKey(name), secret)
    if (!stored.ok) return stored
    const others = await storedKeys()
    if (activate || (others.ok && others.value.length === 1)) {
      const saved = await saveKeys({ apiKeyName: name })
      if (!saved.ok) return saved
    }
    log.info('api key stored', { name, key: maskSecret(secret), kind: kind.value })
    const names = others.ok ? others.value.map((k) => k.name) : [name]
    return ok(keyInfo(name, secret, 'keychain', activeName(names) === name))
  }

  async function removeKey(name: string): Promise<Result<void>> {
    if (name === envKeyName) {
      return err(
        'bad_request',
        'The key "env" comes from WATCHDESK_API_KEY: unset that variable and restart to remove it.',
      )
    }
    const removed = await deps.secrets.delete(accounts.apiKey(name))
    if (!removed.ok) return removed
    if (!removed.value)
      return err('not_found', `No API key named "${name}" is stored. "watchdesk keys list" shows the names.`)
    limiters.delete(name)
    const saved = deps.savedConfig()
    if (saved.apiKeyName === name) {
      const { apiKeyName: _dropped, ...rest } = saved
      const written = await deps.saveConfig(rest)
      if (!written.ok) return written
    }
    log.info('api key removed', { name })
    return ok(undefined)
  }

  async function selectKey(name: string): Promise<Result<void>> {
    const keys = await storedKeys()
    if (!keys.ok) return keys
    if (!keys.value.some((k) => k.name === name))
      return err('not_found', `No API key named "${name}" is stored.`)
    return saveKeys({ apiKeyName: name })
  }

  async function setPlan(name: string, plan: PlanOverride | null): Promise<Result<void>> {
    const plans = { ...((deps.savedConfig().apiKeyPlans as Record<string, unknown> | undefined) ?? {}) }
    if (plan) plans[name] = plan
    else delete plans[name]
    return saveKeys({ apiKeyPlans: plans })
  }

  async function setBusinesses(
    businesses: { id: string; name: string }[],
    selected: string | null,
  ): Promise<Result<void>> {
    if (selected && !businesses.some((b) => b.id === selected)) {
      return err('bad_request', `The selected business ${selected} is not in the list; add it first.`)
    }
    const ids = businesses.map((b) => b.id)
    const duplicate = ids.find((id, i) => ids.indexOf(id) !== i)
    if (duplicate) return err('bad_request', `The business ${duplicate} is listed twice.`)
    const { selectedBusinessId: _old, ...rest } = deps.savedConfig()
    const saved = await deps.saveConfig({
      ...rest,
      businesses,
      ...(selected ? { selectedBusinessId: selected } : {}),
    })
    return saved.ok ? ok(undefined) : saved
  }

  async function setEndpointPaths(paths: Config['webhookEndpoints']): Promise<Result<void>> {
    return saveKeys({ webhookEndpoints: paths })
  }

  /** The client for the active key, or a sentence saying what is missing. */
  async function client(): Promise<
    Result<{ client: PaymentsClient; key: ApiKey; businessId: string | null }>
  > {
    const config = deps.config()
    if (!config.apiBaseUrl) {
      return err(
        'bad_request',
        "apiBaseUrl is not set: put the payments API address (without /v1) in the data dir's config.json or a --config FILE.",
      )
    }
    const keys = await storedKeys()
    if (!keys.ok) return keys
    const name = activeName(keys.value.map((k) => k.name))
    if (!name) {
      return err(
        'unauthorized',
        keys.value.length === 0
          ? 'No API key is stored. Add one in Settings or with "watchdesk keys set NAME" (sk_sandbox_… or sk_live_…), or set WATCHDESK_API_KEY.'
          : `Several API keys are stored (${keys.value.map((k) => k.name).join(', ')}) and none is selected. Select one in Settings or set apiKeyName.`,
      )
    }
    const stored = keys.value.find((k) => k.name === name)!
    const kind = keyKindOf(stored.secret)
    if (!kind.ok)
      return err(
        'bad_request',
        `The stored key "${name}" (${maskSecret(stored.secret)}) is not usable. ${validPrefixesSentence}`,
      )
    const key: ApiKey = { name, secret: stored.secret, kind: kind.value }
    const { limits } = limitsOf(kind.value, config.apiKeyPlans[name])
    let limiter = limiters.get(name)
    if (!limiter) {
      limiter = createLimiter(limits, clock, (queued) => {
        if (rateLimit.keyName === name && queued !== rateLimit.queued) publishRateLimit({ queued })
      })
      limiters.set(name, limiter)
    } else limiter.setLimits(limits)
    if (rateLimit.keyName !== name) {
      publishRateLimit({
        keyName: name,
        masked: maskSecret(stored.secret),
        limitedUntil: null,
        last429At: null,
        count429: 0,
        queued: 0,
      })
    }
    const business = businessId().id
    const payments = createPaymentsClient({
      baseUrl: config.apiBaseUrl,
      key,
      businessId: business,
      limiter,
      clock,
      timeoutMs: config.apiTimeoutMs,
      log,
      fetch: deps.fetch,
      onRateLimited: (until) =>
        publishRateLimit({ limitedUntil: until, last429At: clock.now(), count429: rateLimit.count429 + 1 }),
      onRateLimitCleared: () => {
        if (rateLimit.limitedUntil !== null) publishRateLimit({ limitedUntil: null })
      },
    })
    return ok({ client: payments, key, businessId: business })
  }

  function liveGuard(key: ApiKey, confirmLive: boolean | undefined, what: string): Result<void> {
    if (key.kind !== 'live' || confirmLive === true) return ok(undefined)
    return err(
      'forbidden',
      `The active key "${key.name}" (${maskSecret(key.secret)}) is LIVE: ${what} acts on the live account. Confirm it (the console asks; on the command line answer the question or pass --yes).`,
    )
  }

  async function wallets(): Promise<Result<WalletsResult>> {
    const c = await client()
    if (!c.ok) return c
    const response = await c.value.client.request({
      operation: 'wallets.list',
      method: 'GET',
      path: '/v1/wallets',
    })
    if (!response.ok) return response
    const table = walletTable(response.value.body)
    return ok({
      businessId: c.value.businessId,
      fetchedAt: Date.now(),
      source: table.ok ? table.value.source : null,
      columns: table.ok ? table.value.columns : [],
      rows: table.ok ? table.value.rows : [],
      shapeProblem: table.ok ? null : table.error.message,
      raw: response.value.body,
    })
  }

  async function secretsPresent(): Promise<Set<string>> {
    const listed = await deps.secrets.list()
    if (!listed.ok) return new Set()
    return new Set(
      listed.value.filter((e) => accounts.isWebhookSecret(e.account)).map((e) => accounts.nameOf(e.account)),
    )
  }

  async function listEndpoints(): Promise<Result<{ endpoints: WebhookEndpoint[]; raw: unknown }>> {
    const c = await client()
    if (!c.ok) return c
    const path = deps.config().webhookEndpoints.listPath
    const response = await c.value.client.request({ operation: 'webhooks.list', method: 'GET', path })
    if (!response.ok) return response
    const list = findList(response.value.body, `GET ${path}`)
    if (!list.ok)
      return err(
        'upstream',
        `${list.error.message} If the list lives elsewhere, set webhookEndpoints.listPath.`,
      )
    const present = await secretsPresent()
    const endpoints = list.value.items
      .map((item) => toEndpoint(item, present))
      .filter((e): e is WebhookEndpoint => e !== null)
    return ok({ endpoints, raw: maskSecrets(response.value.body) })
  }

  async function createEndpoint(
    input: EndpointInput,
    confirmLive?: boolean,
  ): Promise<Result<CreatedEndpoint>> {
    const checked = checkEndpointInput(input)
    if (!checked.ok) return checked
    const c = await client()
    if (!c.ok) return c
    const guard = liveGuard(c.value.key, confirmLive, 'creating a webhook endpoint')
    if (!guard.ok) return guard
    const response = await c.value.client.request({
      operation: 'webhooks.create',
      method: 'POST',
      path: '/v1/webhooks',
      body: checked.value,
    })
    if (!response.ok) return response
    const body = unwrapObject(response.value.body)
    const id = typeof body?.id === 'string' ? body.id : null
    if (!body || !id) {
      return err(
        'upstream',
        `POST /v1/webhooks succeeded (${response.value.status}) but the answer has no endpoint id: ${JSON.stringify(maskSecrets(response.value.body))}.`,
      )
    }
    const secret = typeof body.secret === 'string' && body.secret.length > 0 ? body.secret : null
    let secretStored = false
    let secretProblem: string | null = null
    const account = accounts.webhookSecret(id)
    if (secret) {
      redactFromLogs(secret)
      const stored = await deps.secrets.set(account, secret)
      secretStored = stored.ok
      if (!stored.ok)
        secretProblem = `The secret could not be written to the keychain (${stored.error.message}). Copy it now: it is not shown again.`
      else if (!secret.startsWith('whsec_'))
        secretProblem = 'The secret does not start with whsec_ as the spec says; it was stored as given.'
    } else
      secretProblem =
        'The create answer carried no secret, so deliveries to this endpoint cannot be verified. Delete it and create it again.'
    log.info('webhook endpoint created', {
      id,
      url: checked.value.url,
      events: checked.value.events,
      secretStored,
      idempotencyKey: response.value.idempotencyKey,
    })
    const present = secretStored ? new Set([id]) : new Set<string>()
    return ok({
      endpoint: toEndpoint(body, present)!,
      secretShownOnce: secret,
      secretAccount: account,
      secretStored,
      secretProblem,
      idempotencyKey: response.value.idempotencyKey ?? '',
    })
  }

  async function deleteEndpoint(
    id: string,
    confirmLive?: boolean,
  ): Promise<Result<{ id: string; secretRemoved: boolean }>> {
    const c = await client()
    if (!c.ok) return c
    const guard = liveGuard(c.value.key, confirmLive, `deleting the webhook endpoint ${id}`)
    if (!guard.ok) return guard
    const { deletePath, deleteParam } = deps.config().webhookEndpoints
    const response = await c.value.client.request({
      operation: 'webhooks.delete',
      method: 'DELETE',
      path: deletePath,
      query: { [deleteParam]: id },
    })
    if (!response.ok) return response
    const removed = await deps.secrets.delete(accounts.webhookSecret(id))
    log.info('webhook endpoint deleted', { id, secretRemoved: removed.ok && removed.value })
    return ok({ id, secretRemoved: removed.ok && removed.value })
  }

  return {
    status,
    setKey,
    removeKey,
    selectKey,
    setPlan,
    setBusinesses,
    setEndpointPaths,
    wallets,
    listEndpoints,
    createEndpoint,
    deleteEndpoint,
    client,
    rateLimit: () => rateLimit,
  }
}

function unwrapObject(body: unknown): Record<string, unknown> | null {
  if (!isRecord(body)) return null
  if (typeof body.id === 'string') return body
  for (const key of ['data', 'webhook', 'endpoint', 'webhook_endpoint']) {
    const inner = body[key]
    if (isRecord(inner) && typeof inner.id === 'string') return inner
  }
  return null
}

function toEndpoint(item: unknown, secretsPresent: Set<string>): WebhookEndpoint | null {
  if (!isRecord(item) || typeof item.id !== 'string') return null
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  return {
    id: item.id,
    url: str(item.url),
    events: Array.isArray(item.events) ? item.events.filter((e): e is string => typeof e === 'string') : [],
    description: str(item.description),
    status: str(item.status),
    secret: typeof item.secret === 'string' && item.secret ? maskSecret(item.secret) : null,
    createdAt: str(item.created_at),
    secretInKeychain: secretsPresent.has(item.id),
  }
}

/** The list is said to mask secrets; mask again whatever arrives before it reaches the renderer. */
function maskSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskSecrets)
  if (!isRecord(value)) return value
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === 'secret' && typeof v === 'string' ? maskSecret(v) : maskSecrets(v),
    ]),
  )
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
