import type { KeyInfo } from '../../shared/contract/payments'
import { maskSecret } from '../../shared/mask'
import { checkKeyName, keyKindOf, limitsOf, validPrefixesSentence } from '../../shared/payments'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import { redactFromLogs } from '../log'
import { accounts } from '../secrets'
import type { SecretStore } from '../secrets'
import type { PaymentsSettings } from './settings'
import type { RateLimits } from './rate-limits'

/** The name of the key that WATCHDESK_API_KEY provides. */
export const envKeyName = 'env'

export interface StoredKey {
  name: string
  secret: string
  source: KeyInfo['source']
}

export type KeyRing = ReturnType<typeof createKeyRing>

/** The API keys in the keychain (`api-key:<name>`), which one is active, and what the console
 * may see of each (masked, with its plan). */
export function createKeyRing(
  secrets: SecretStore,
  settings: PaymentsSettings,
  rateLimits: RateLimits,
  log: Logger,
) {
  async function stored(): Promise<Result<StoredKey[]>> {
    const listed = await secrets.list()
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

  /** The environment's key, else the selected one, else the only one. */
  function activeName(names: string[]): string | null {
    if (names.includes(envKeyName)) return envKeyName
    const chosen = settings.config().apiKeyName
    if (chosen && names.includes(chosen)) return chosen
    return names.length === 1 ? names[0]! : null
  }

  function describe(key: StoredKey, active: boolean): KeyInfo {
    redactFromLogs(key.secret)
    const kind = keyKindOf(key.secret)
    const plan = kind.ok ? limitsOf(kind.value, settings.config().apiKeyPlans[key.name]) : null
    return {
      name: key.name,
      masked: maskSecret(key.secret),
      kind: kind.ok ? kind.value : null,
      source: key.source,
      plan: plan?.plan ?? null,
      perMinute: plan?.limits.perMinute ?? null,
      perSecond: plan?.limits.perSecond ?? null,
      planInferred: plan?.inferred ?? false,
      active,
      problem: kind.ok ? null : `This stored value is not an API key. ${validPrefixesSentence}`,
    }
  }

  /** The name and the key checked before anything is sent or stored: the trimmed key. */
  function check(name: string, key: string): Result<string> {
    const checked = checkKeyName(name)
    if (!checked.ok) return checked
    const secret = key.trim()
    const kind = keyKindOf(secret)
    if (!kind.ok) return kind
    redactFromLogs(secret)
    return ok(secret)
  }

  return {
    stored,
    activeName,
    describe,

    check,

    /** Stores the key; selects it when asked to, or when it is the only one. */
    async set(name: string, key: string, activate = false): Promise<Result<KeyInfo>> {
      const checked = check(name, key)
      if (!checked.ok) return checked
      const secret = checked.value
      const kind = keyKindOf(secret)
      if (!kind.ok) return kind
      const written = await secrets.set(accounts.apiKey(name), secret)
      if (!written.ok) return written
      const all = await stored()
      if (activate || (all.ok && all.value.length === 1)) {
        const selected = await settings.selectKeyName(name)
        if (!selected.ok) return selected
      }
      log.info('api key stored', { name, key: maskSecret(secret), kind: kind.value })
      const names = all.ok ? all.value.map((k) => k.name) : [name]
      return ok(describe({ name, secret, source: 'keychain' }, activeName(names) === name))
    },

    async remove(name: string): Promise<Result<void>> {
      if (name === envKeyName) {
        return err(
          'bad_request',
          'The key "env" comes from WATCHDESK_API_KEY: unset that variable and restart to remove it.',
        )
      }
      const removed = await secrets.delete(accounts.apiKey(name))
      if (!removed.ok) return removed
      if (!removed.value)
        return err(
          'not_found',
          `No API key named "${name}" is stored. "watchdesk keys list" shows the names.`,
        )
      rateLimits.forget(name)
      const forgotten = await settings.forgetKeyName(name)
      if (!forgotten.ok) return forgotten
      log.info('api key removed', { name })
      return ok(undefined)
    },

    async select(name: string): Promise<Result<void>> {
      const all = await stored()
      if (!all.ok) return all
      if (!all.value.some((k) => k.name === name))
        return err('not_found', `No API key named "${name}" is stored.`)
      return settings.selectKeyName(name)
    },
  }
}
