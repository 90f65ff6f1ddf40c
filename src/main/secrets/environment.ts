import { ok } from '../../shared/result'
import { redactFromLogs } from '../log'
import { accounts } from './accounts'
import type { SecretEntry, SecretStore } from './store'

export const environmentSecretNames = [
  'WATCHDESK_API_KEY',
  'WATCHDESK_WEBHOOK_SECRETS',
  'WATCHDESK_PROJECT_UID',
] as const

/** Secrets from the environment (servers without a keychain). They override the keychain, are
 * read-only, and are never written anywhere. */
export function environmentEntries(env: NodeJS.ProcessEnv): SecretEntry[] {
  const entries: SecretEntry[] = []
  const add = (account: string, secret: string | undefined) => {
    const value = secret?.trim()
    if (!value) return
    redactFromLogs(value)
    entries.push({ account, secret: value, source: 'environment' })
  }
  add(accounts.apiKey('env'), env.WATCHDESK_API_KEY)
  add(accounts.projectUid, env.WATCHDESK_PROJECT_UID)
  ;(env.WATCHDESK_WEBHOOK_SECRETS ?? '')
    .split(',')
    .forEach((secret, i) => add(accounts.webhookSecret(`env-${i + 1}`), secret))
  return entries
}

export function withEnvironmentSecrets(
  store: SecretStore,
  env: NodeJS.ProcessEnv = process.env,
): SecretStore {
  const fromEnv = new Map(environmentEntries(env).map((e) => [e.account, e]))
  const keychainOptional = fromEnv.size > 0
  return {
    get: async (account) => {
      const entry = fromEnv.get(account)
      return entry ? ok(entry.secret) : store.get(account)
    },
    set: (account, secret) => store.set(account, secret),
    delete: (account) => store.delete(account),
    list: async () => {
      const stored = await store.list()
      if (!stored.ok) return keychainOptional ? ok([...fromEnv.values()]) : stored
      const shadowed = stored.value.filter((e) => !fromEnv.has(e.account))
      return ok([...fromEnv.values(), ...shadowed])
    },
    status: async () => {
      const status = await store.status()
      if (status.reachable || !keychainOptional) return status
      return {
        reachable: false,
        backend: 'environment',
        message: `Using secrets from the environment (${[...new Set([...fromEnv.keys()].map(envNameOf))].join(', ')}). ${status.message}`,
      }
    },
  }
}

function envNameOf(account: string): string {
  if (accounts.isApiKey(account)) return 'WATCHDESK_API_KEY'
  if (accounts.isWebhookSecret(account)) return 'WATCHDESK_WEBHOOK_SECRETS'
  return 'WATCHDESK_PROJECT_UID'
}
