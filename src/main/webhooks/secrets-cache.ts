import type { Logger } from '../log'
import { redactFromLogs } from '../log'
import { accounts } from '../secrets'
import type { ObservedSecretStore } from '../secrets'

/** The webhook secrets, held in memory by endpoint id: a keychain round trip per delivery would be
 * far too slow. Refreshed whenever the secret store reports a change. */
export interface SecretsCache {
  all(): ReadonlyMap<string, Buffer>
  /** Only this endpoint's secret (for `/webhooks/<endpoint id>`). */
  only(endpoint: string): ReadonlyMap<string, Buffer>
  endpoints(): string[]
  problem(): string | null
  firstEndpoint(): string | null
  secretOf(endpoint: string): string | null
  stop(): void
}

export async function loadSecretsCache(store: ObservedSecretStore, log: Logger): Promise<SecretsCache> {
  const secrets = new Map<string, Buffer>()
  let problem: string | null = null
  const listed = await store.list()
  if (listed.ok) {
    for (const entry of listed.value) {
      if (!accounts.isWebhookSecret(entry.account)) continue
      redactFromLogs(entry.secret)
      secrets.set(accounts.nameOf(entry.account), Buffer.from(entry.secret, 'utf8'))
    }
  } else {
    problem = `Webhook secrets could not be read: ${listed.error.message}`
    log.warn('webhook secrets unavailable', { message: listed.error.message })
  }
  const unsubscribe = store.onChange((account) => {
    if (!accounts.isWebhookSecret(account)) return
    void store.get(account).then((got) => {
      const endpoint = accounts.nameOf(account)
      if (got.ok && got.value) {
        redactFromLogs(got.value)
        secrets.set(endpoint, Buffer.from(got.value, 'utf8'))
        problem = null
      } else if (got.ok) secrets.delete(endpoint)
      else log.warn('could not refresh a webhook secret', { endpoint, message: got.error.message })
    })
  })
  const empty: ReadonlyMap<string, Buffer> = new Map()
  return {
    all: () => secrets,
    only: (endpoint) => {
      const secret = secrets.get(endpoint)
      return secret ? new Map([[endpoint, secret]]) : empty
    },
    endpoints: () => [...secrets.keys()].sort(),
    problem: () =>
      problem ??
      (secrets.size === 0
        ? 'No webhook secret is configured, so every delivery is refused (401). Create a webhook endpoint (Wallets view, or `watchdesk webhooks create`), or set WATCHDESK_WEBHOOK_SECRETS.'
        : null),
    firstEndpoint: () => [...secrets.keys()][0] ?? null,
    secretOf: (endpoint) => secrets.get(endpoint)?.toString('utf8') ?? null,
    stop: unsubscribe,
  }
}
