import type { Disposable } from '../../shared/disposable'
import { Emitter } from '../../shared/emitter'
import type { Logger } from '../log'
import { redactFromLogs } from '../log'
import { accounts } from '../secrets'
import type { ObservedSecretStore } from '../secrets'

/** The webhook secrets, held in memory by endpoint id: a keychain round trip per delivery would be
 * far too slow. Refreshed whenever the secret store reports a change (this process), and on demand
 * when a delivery matches no cached secret (another process, such as `watchdesk webhooks create`,
 * may have written one to the keychain). */
/** A secret this console used before a rotation, a Connect or a removal: kept in memory (never
 * written anywhere) so that a delivery still signed with it is explained, never accepted. */
export interface RetiredSecret {
  endpoint: string
  secret: Buffer
  retiredAt: number
}

export interface SecretsCache {
  all(): ReadonlyMap<string, Buffer>
  /** Secrets replaced or removed within the retirement window (listener.retiredSecretHours),
   * newest first. */
  retired(): readonly RetiredSecret[]
  /** Only this endpoint's secret (for `/webhooks/<endpoint id>`). */
  only(endpoint: string): ReadonlyMap<string, Buffer>
  endpoints(): string[]
  problem(): string | null
  firstEndpoint(): string | null
  secretOf(endpoint: string): string | null
  /** Re-reads the keychain, at most once per `minRefreshIntervalMs` and never twice at once: a
   * caller during a read shares it, a caller too soon after one gets `false` without a read. True
   * when a read completed for this call, so it is worth verifying again. */
  refresh(): Promise<boolean>
  /** Called after the secrets changed (a write in this process, or a re-read that found others):
   * whoever keeps a copy (the forward worker) takes the new ones; no one needs to poll. */
  onChange(listener: () => void): Disposable
  stop(): void
}

const defaultRetiredForMs = 72 * 3_600_000
/** A few per endpoint is plenty: a rotation or a Connect is rare. */
const maxRetired = 32

export interface SecretsCacheOptions {
  /** Least time between two on-demand keychain reads (a flood of bad signatures must not hammer
   * the keychain). */
  minRefreshIntervalMs?: number
  /** How long a replaced or removed secret is kept to explain signatures made with it. */
  retiredForMs?: () => number
  now?: () => number
}

export const defaultMinRefreshIntervalMs = 2_000

export async function loadSecretsCache(
  store: ObservedSecretStore,
  log: Logger,
  options: SecretsCacheOptions = {},
): Promise<SecretsCache> {
  const minInterval = options.minRefreshIntervalMs ?? defaultMinRefreshIntervalMs
  const now = options.now ?? Date.now
  const secrets = new Map<string, Buffer>()
  let retired: RetiredSecret[] = []
  const retiredForMs = options.retiredForMs ?? (() => defaultRetiredForMs)
  /** Keeps the secret an endpoint had before `next` (a new value, or none) in the retired list. */
  const retire = (endpoint: string, next: Buffer | undefined) => {
    const before = secrets.get(endpoint)
    if (!before || (next && before.equals(next))) return
    retired = [{ endpoint, secret: before, retiredAt: now() }, ...retired].slice(0, maxRetired)
  }
  let problem: string | null = null
  // Endpoints changed in this process while a read was under way: their onChange reload is newer
  // than what that read returns.
  let changedDuringRead: Set<string> | null = null
  const changes = new Emitter<void>({
    onListenerError: (error) => log.error('a webhook secrets listener failed', { error }),
  })
  const notify = () => changes.fire()

  const fingerprint = () => [...secrets].map(([k, v]) => `${k}:${v.toString('base64')}`).join(',')

  /** Brings the cache to what the keychain holds now; keeps it when the keychain cannot be read. */
  async function readAll(): Promise<void> {
    const changed = new Set<string>()
    changedDuringRead = changed
    const listed = await store.list().finally(() => (changedDuringRead = null))
    if (!listed.ok) {
      problem = `Webhook secrets could not be read: ${listed.error.message}`
      log.warn('webhook secrets unavailable', { message: listed.error.message })
      return
    }
    const before = fingerprint()
    const read = new Map<string, Buffer>()
    for (const entry of listed.value) {
      if (!accounts.isWebhookSecret(entry.account)) continue
      redactFromLogs(entry.secret)
      read.set(accounts.nameOf(entry.account), Buffer.from(entry.secret, 'utf8'))
    }
    for (const endpoint of [...secrets.keys()])
      if (!read.has(endpoint) && !changed.has(endpoint)) {
        retire(endpoint, undefined)
        secrets.delete(endpoint)
      }
    for (const [endpoint, secret] of read)
      if (!changed.has(endpoint)) {
        retire(endpoint, secret)
        secrets.set(endpoint, secret)
      }
    problem = null
    if (fingerprint() !== before) notify()
  }

  await readAll()
  let reading: Promise<boolean> | null = null
  // The read at start does not count: the first unknown signature after start may read at once.
  let lastRefreshAt = -Infinity

  const unsubscribe = store.onChange((account) => {
    if (!accounts.isWebhookSecret(account)) return
    const endpoint = accounts.nameOf(account)
    changedDuringRead?.add(endpoint)
    void store.get(account).then((got) => {
      if (got.ok && got.value) {
        redactFromLogs(got.value)
        const secret = Buffer.from(got.value, 'utf8')
        retire(endpoint, secret)
        secrets.set(endpoint, secret)
        problem = null
        notify()
      } else if (got.ok) {
        retire(endpoint, undefined)
        if (secrets.delete(endpoint)) notify()
      } else log.warn('could not refresh a webhook secret', { endpoint, message: got.error.message })
    })
  })
  const empty: ReadonlyMap<string, Buffer> = new Map()
  return {
    all: () => secrets,
    retired: () => {
      const since = now() - retiredForMs()
      retired = retired.filter((r) => r.retiredAt >= since)
      return retired
    },
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
    refresh() {
      if (reading) return reading
      if (now() - lastRefreshAt < minInterval) return Promise.resolve(false)
      lastRefreshAt = now()
      reading = readAll().then(
        () => true,
        (error: unknown) => {
          log.warn('could not re-read the webhook secrets', { message: (error as Error).message })
          return false
        },
      )
      void reading.finally(() => (reading = null))
      return reading
    },
    onChange: changes.event,
    stop: () => unsubscribe.dispose(),
  }
}
