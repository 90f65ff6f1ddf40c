import pg from 'pg'
import { parse as parseConnectionString } from 'pg-connection-string'
import { maskUrlSecrets } from '../../shared/mask'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import { migratePostgres } from './pg-migrations'
import type { MigrationOutcome } from './pg-migrations'
import { newStoreIdentity } from './store'

// The PostgreSQL store's connections: the URL read with libpq's meanings, the session settings
// every connection gets, the fix for why one could not be opened, the schema and the identity.

/** int8 as a JS number (sequence values and ms timestamps stay far below 2^53). */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

/** node-postgres reads `sslmode=require` as verify-full; teams write URLs with libpq's meanings
 * (`require` encrypts without verifying, `verify-ca`/`verify-full` verify against `sslrootcert=`).
 * pg-connection-string's libpq mode gives exactly those. */
export function pgConfigOf(url: string, env: NodeJS.ProcessEnv = process.env): Result<pg.ClientConfig> {
  try {
    const u = new URL(url)
    u.searchParams.delete('uselibpqcompat')
    // libpq's environment variables, read with libpq's meanings too (node-postgres would read
    // PGSSLMODE=require as verify-full). The URL wins, as with libpq.
    for (const [name, param] of [
      ['PGSSLMODE', 'sslmode'],
      ['PGSSLROOTCERT', 'sslrootcert'],
    ] as const)
      if (env[name] && !u.searchParams.has(param)) u.searchParams.set(param, env[name])
    const config = parseConnectionString(u.toString(), { useLibpqCompat: true })
    return ok({ ...(config as pg.ClientConfig), types })
  } catch (error) {
    return err('bad_request', `The PostgreSQL URL cannot be used: ${(error as Error).message}`)
  }
}

const tlsTrustCodes = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
])

/** The fix for why PostgreSQL could not be opened, in the operator's terms. */
export function postgresFix(error: unknown): string {
  const e = error as { code?: string; message?: string }
  const message = e.message ?? ''
  if (e.code && tlsTrustCodes.has(e.code))
    return "The server's certificate is not signed by a CA this relay trusts: give that CA with sslrootcert=/path/to/root.crt (sslmode=verify-full or verify-ca), or use sslmode=require to encrypt without verifying the server."
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return 'The certificate does not name the host in the URL: connect by a name it carries, or use sslmode=verify-ca with sslrootcert= to check the CA but not the name.'
  if (e.code === 'CERT_HAS_EXPIRED') return "The server's certificate has expired: renew it on the server."
  if (/does not support SSL/i.test(message))
    return 'The server does not accept TLS (ssl = off): turn ssl on in postgresql.conf, or remove sslmode= from the URL on a trusted network.'
  if (/no pg_hba\.conf entry/i.test(message) && /no encryption/i.test(message))
    return 'The server accepts this user only over TLS: add sslmode=require (or verify-full with sslrootcert=) to the URL.'
  if (e.code === '42501')
    return 'This role may not change the schema. Apply it once with the owner: watchdesk relay migrate --store postgres://OWNER@host/db, then start the relay with this role (it needs SELECT, INSERT, UPDATE, DELETE on the tables and USAGE on the sequences).'
  if (e.code === '28P01' || e.code === '28000')
    return 'PostgreSQL refused the user: check the user and password (or the passfile) in the URL and pg_hba.conf.'
  if (e.code === '3D000')
    return 'The database does not exist: create it (createdb) or fix its name in the URL.'
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'ETIMEDOUT')
    return 'Nothing answers at that host and port: check that PostgreSQL (or PgBouncer) runs and the URL.'
  return 'Check the URL, that the server runs and that the user may use the database.'
}

/** `postgres://user:secret@host/db?sslpassword=…` with every secret masked, for output, logs, error
 * messages and the sync API (the one masking function, shared/mask.ts). */
export const safePostgresUrl = (url: string): string => maskUrlSecrets(url)

export const defaultCommitDeadlineMs = 5_000

/** Session settings every connection gets when it opens. A `SET` rather than startup parameters:
 * PgBouncer refuses unknown startup parameters. Behind PgBouncer's transaction pooling they land
 * on whichever server connection ran them, so there they are a best effort; the commit deadline
 * (client side) holds regardless. */
export function sessionSettings(deadlineMs: number): string {
  const lock = Math.max(50, Math.min(1_000, Math.floor(deadlineMs / 4)))
  return `SET statement_timeout = ${deadlineMs}; SET lock_timeout = ${lock}; SET idle_in_transaction_session_timeout = ${deadlineMs * 2}`
}

/** The store's identity, made once and kept in relay_meta (`store`): every relay on this database
 * gives the same one. */
export async function pgStoreIdentity(pool: pg.Pool): Promise<string> {
  await pool.query("INSERT INTO relay_meta (key, value) VALUES ('store', $1) ON CONFLICT (key) DO NOTHING", [
    newStoreIdentity(),
  ])
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM relay_meta WHERE key = 'store'")
  return rows[0]!.value
}

/** `watchdesk relay migrate`: the schema steps alone, typically with the owner role, so the
 * relays can run with a role that only reads and writes rows. */
export async function migratePostgresUrl(url: string): Promise<Result<MigrationOutcome>> {
  const config = pgConfigOf(url)
  if (!config.ok) return config
  const pool = new pg.Pool({ ...config.value, max: 1, connectionTimeoutMillis: 10_000 })
  pool.on('error', () => {})
  const schema = await preparedSchema(pool)
  await pool.end().catch(() => {})
  return schema.ok
    ? schema
    : err(
        'unavailable',
        `PostgreSQL at ${safePostgresUrl(url)} cannot be migrated (${maskUrlSecrets(schema.error.message)}). ${schema.error.fix}`,
      )
}

/** Brings the schema up to date on one connection (only reads it when it is current). */
export async function preparedSchema(
  pool: pg.Pool,
): Promise<{ ok: true; value: MigrationOutcome } | { ok: false; error: { message: string; fix: string } }> {
  try {
    const client = await pool.connect()
    try {
      return { ok: true, value: await migratePostgres(client) }
    } finally {
      client.release()
    }
  } catch (error) {
    return { ok: false, error: { message: (error as Error).message, fix: postgresFix(error) } }
  }
}

/** A pool whose connections get `sessionSettings(deadlineMs)` before they are handed out (a
 * failure discards the connection); an idle connection that dies is logged, never thrown. */
export function openPool(
  config: pg.ClientConfig,
  {
    max,
    deadlineMs,
    queryTimeoutMs,
    log,
  }: { max: number; deadlineMs: number; queryTimeoutMs?: number; log?: Logger },
): pg.Pool {
  const p = new pg.Pool({
    ...config,
    max,
    connectionTimeoutMillis: 10_000,
    ...(queryTimeoutMs ? { query_timeout: queryTimeoutMs } : {}),
    // Before the connection is handed out (a failure discards it).
    onConnect: async (client: pg.ClientBase) => {
      await client.query(sessionSettings(deadlineMs))
    },
  })
  // An idle connection that dies (server restart) must not take the process down.
  p.on('error', (error) =>
    log?.warn('a PostgreSQL connection failed', { error: maskUrlSecrets(error.message) }),
  )
  return p
}
