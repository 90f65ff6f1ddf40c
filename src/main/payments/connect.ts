import { maskSecret } from '../../shared/mask'
import { keyKindOf, limitsOf, validPrefixesSentence } from '../../shared/payments'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import { createPaymentsClient } from './client'
import type { ApiKey, PaymentsClient } from './client'
import type { Clock } from './pace-clock'
import type { KeyRing } from './keys'
import type { RateLimits } from './rate-limits'
import type { PaymentsSettings } from './settings'

export interface Connection {
  client: PaymentsClient
  key: ApiKey
  businessId: string | null
}

export interface ConnectDeps {
  settings: PaymentsSettings
  keys: KeyRing
  rateLimits: RateLimits
  clock: Clock
  log: Logger
  fetch?: typeof fetch
  onDate?: (localMs: number, date: string) => void
}

/** A client for the active key, or a sentence saying what is missing. Not a pure getter: the
 * key's limiter takes the key's current plan, and the published rate-limit state switches to
 * this key when it was following another. */
export async function connectActiveKey(
  deps: ConnectDeps,
  override: ConnectOverride = {},
): Promise<Result<Connection>> {
  const config = deps.settings.config()
  const baseUrl = override.baseUrl ?? config.apiBaseUrl
  if (!baseUrl) {
    return err(
      'bad_request',
      'apiBaseUrl is not set: enter the payments API address in Settings → Connection (or `watchdesk config set apiBaseUrl URL`).',
    )
  }
  // A key not stored yet (tested before it is kept): nothing to look up in the keychain.
  if (override.keyName && override.secret !== undefined)
    return connectKey(deps, baseUrl, override.keyName, override.secret, false)
  const keys = await deps.keys.stored()
  if (!keys.ok) return keys
  const name = override.keyName ?? deps.keys.activeName(keys.value.map((k) => k.name))
  if (override.keyName && !keys.value.some((k) => k.name === override.keyName))
    return err('not_found', `No API key named "${override.keyName}" is stored.`)
  if (!name) {
    return err(
      'unauthorized',
      keys.value.length === 0
        ? 'No API key is stored. Add one in Settings or with "watchdesk keys set NAME" (sk_sandbox_… or sk_live_…), or set WATCHDESK_API_KEY.'
        : `Several API keys are stored (${keys.value.map((k) => k.name).join(', ')}) and none is selected. Select one in Settings or set apiKeyName.`,
    )
  }
  const stored = keys.value.find((k) => k.name === name)!
  return connectKey(deps, baseUrl, name, stored.secret, true)
}

export interface ConnectOverride {
  keyName?: string
  baseUrl?: string
  /** The key itself, for a key tested before it is stored (with keyName). */
  secret?: string
}

function connectKey(
  deps: ConnectDeps,
  baseUrl: string,
  name: string,
  secret: string,
  stored: boolean,
): Result<Connection> {
  const config = deps.settings.config()
  const kind = keyKindOf(secret)
  if (!kind.ok)
    return err(
      'bad_request',
      `The ${stored ? 'stored ' : ''}key "${name}" (${maskSecret(secret)}) is not usable. ${validPrefixesSentence}`,
    )
  const key: ApiKey = { name, secret, kind: kind.value }
  const { limits } = limitsOf(kind.value, config.apiKeyPlans[name])
  const limiter = deps.rateLimits.limiterFor(name, limits)
  // The published rate-limit state follows the keys in use, not one merely being tried.
  if (stored) deps.rateLimits.follow(name, maskSecret(secret))
  const businessId = deps.settings.businessId().id
  const client = createPaymentsClient({
    baseUrl,
    key,
    businessId,
    limiter,
    clock: deps.clock,
    timeoutMs: config.apiTimeoutMs,
    log: deps.log,
    fetch: deps.fetch,
    onRateLimited: (until) => deps.rateLimits.limited(until),
    onRateLimitCleared: () => deps.rateLimits.cleared(),
    onDate: deps.onDate,
  })
  return ok({ client, key, businessId })
}

/** Writes with a live key need the operator's confirmation. */
export function confirmLiveWrite(key: ApiKey, confirmLive: boolean | undefined, what: string): Result<void> {
  if (key.kind !== 'live' || confirmLive === true) return ok(undefined)
  return err(
    'forbidden',
    `The active key "${key.name}" (${maskSecret(key.secret)}) is LIVE: ${what} acts on the live account. Confirm it (the console asks; on the command line answer the question or pass --yes).`,
  )
}
