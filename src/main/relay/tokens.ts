import { createHash, randomBytes } from 'node:crypto'
import type { Database } from 'better-sqlite3'
import type { Result } from '../../shared/result'
import { err, ok } from '../../shared/result'
import { scopeAllows } from './store'
import type { RelayStore, TokenScope } from './store'

export const tokenNamePattern = /^[A-Za-z0-9_.-]{1,64}$/

/** The stored form of a token: its SHA-256 (a token is 192 random bits, so no salt or slow hash
 * is needed to make the stored value useless to whoever reads the database). */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex')

/** Creates a token, stores only its hash, and returns the token (shown once, never again). */
export async function createRelayToken(
  store: RelayStore,
  name: string,
  scope: TokenScope = 'read',
): Promise<Result<string>> {
  if (!tokenNamePattern.test(name))
    return err('bad_request', `"${name}" is not a token name: use letters, digits, _ . - (at most 64).`)
  const token = `wdr_${randomBytes(24).toString('base64url')}`
  const stored = await store.tokens.create(name, hashToken(token), Date.now(), scope)
  return stored.ok ? ok(token) : stored
}

/** The live token in an `Authorization: Bearer …` header. */
export async function tokenOf(
  store: RelayStore,
  header: string | undefined,
): Promise<{ name: string; scope: TokenScope } | null> {
  const m = /^Bearer\s+(\S{1,200})$/i.exec(header ?? '')
  if (!m) return null
  return store.tokens.lookup(hashToken(m[1]!))
}

/** The name of the live token in an `Authorization: Bearer …` header when its scope allows
 * `need`, or null. */
export async function authorize(
  store: RelayStore,
  header: string | undefined,
  need: TokenScope = 'read',
): Promise<string | null> {
  const token = await tokenOf(store, header)
  return token && scopeAllows(token.scope, need) ? token.name : null
}

/** For the console's own GET /metrics: whether `header` carries a live relay token, made in the
 * console's database (`watchdesk relay token create prometheus --scope metrics`), that opens
 * /metrics. Prometheus then never holds the launch token that opens the whole API. */
export function metricsTokenChecker(db: Database): (header: string | undefined) => boolean {
  const lookup = db.prepare('SELECT scope FROM relay_tokens WHERE hash = ? AND revoked_at IS NULL')
  return (header) => {
    const m = /^Bearer\s+(\S{1,200})$/i.exec(header ?? '')
    if (!m) return false
    const row = lookup.get(hashToken(m[1]!)) as { scope: TokenScope } | undefined
    return row !== undefined && scopeAllows(row.scope, 'metrics')
  }
}
