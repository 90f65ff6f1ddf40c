import { postgresRetentionTarget } from './pg-retention'
import { Emitter } from '../../shared/emitter'
import { createHash, randomUUID } from 'node:crypto'
import pg from 'pg'
import type { PoolClient } from 'pg'
import { parse as parseConnectionString } from 'pg-connection-string'
import type { EventFilter, Rejection } from '../../shared/contract/events'
import { filterSql, postgresDialect } from '../../shared/events/filter'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { redactFromLogs } from '../log'
import type { Logger } from '../log'
import { maskUrlSecrets, urlSecretValues } from '../../shared/mask'
import type { CommitReply, ItemResult, StorageFailure } from '../webhooks'
import { resultOf } from '../webhooks'
import type { CommitResult, Committer } from '../webhooks'
import type { CommittedRow, DetailRow, EventParams, EventRow } from '../webhooks'
import { toDetail, toSummary } from '../webhooks'
import { migratePostgres } from './pg-migrations'
import type { MigrationOutcome } from './pg-migrations'
import { newStoreIdentity, stalledCode, syncColumns, toSyncEvent } from './store'
import type { RelayStore, SyncPage, SyncRow, TokenScope, Wakeups } from './store'

const notifyChannel = 'watchdesk_events'

/** int8 as a JS number (sequence values and ms timestamps stay far below 2^53). */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
}

export interface PgStoreOptions {
  /** Transactions committing at once; requests arriving meanwhile are joined into the next one. */
  parallelCommits?: number
  /** Connections of the read pool (sync API, tokens, `events --store`): a pool of their own, so
   * followers never take a connection a commit needs. */
  readConnections?: number
  /** A delivery whose commit has not finished by then is answered 503 and the storage status says
   * "stalled" (a frozen server, a held lock, a full WAL disk…). Also PostgreSQL's
   * statement_timeout; lock_timeout is a quarter of it (at most 1 s). */
  commitDeadlineMs?: number
  log?: Logger
  /** At most one commit notice to the other relays per this many ms (commitNotifier). */
  noticeEveryMs?: number
  /** How often streams' wake-up poll asks whether anything committed when LISTEN/NOTIFY does not
   * arrive (PgBouncer in transaction mode). */
  wakePollMs?: number
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

/** A shared store several relays write at once. The database enforces one row per event id
 * (unique key, INSERT … ON CONFLICT), so the same delivery to two relays is stored once; each
 * relay answers 200 only after its own COMMIT. */
export async function openPostgresStore(
  url: string,
  options: PgStoreOptions = {},
): Promise<Result<RelayStore>> {
  // Whatever a library quotes of the URL, a log line or the output never carries its secrets.
  for (const secret of urlSecretValues(url)) redactFromLogs(secret)
  const parallel = options.parallelCommits ?? 6
  const deadlineMs = options.commitDeadlineMs ?? defaultCommitDeadlineMs
  const config = pgConfigOf(url)
  if (!config.ok) return err(config.error.code, maskUrlSecrets(config.error.message))
  const poolOf = (max: number, queryTimeoutMs?: number) => {
    const p = new pg.Pool({
      ...config.value,
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
      options.log?.warn('a PostgreSQL connection failed', { error: maskUrlSecrets(error.message) }),
    )
    return p
  }
  // Commits (and the probe, and the commit notice) on one pool, every read on another: a hundred
  // followers catching up never make a delivery wait for a connection.
  const pool = poolOf(parallel + 2)
  // A read of a frozen server fails (and its connection is dropped) rather than hang a sync
  // request; commits keep their deadline instead (a transaction's connection must not be reused
  // while its statement may still run).
  const reads = poolOf(options.readConnections ?? 4, deadlineMs * 2)
  const schema = await preparedSchema(pool)
  if (!schema.ok) {
    await Promise.all([pool.end().catch(() => {}), reads.end().catch(() => {})])
    return err(
      'unavailable',
      `PostgreSQL at ${safePostgresUrl(url)} cannot be used (${maskUrlSecrets(schema.error.message)}). ${schema.error.fix}`,
    )
  }
  let identity: string
  try {
    identity = await pgStoreIdentity(pool)
  } catch (error) {
    await Promise.all([pool.end().catch(() => {}), reads.end().catch(() => {})])
    return err(
      'unavailable',
      `PostgreSQL at ${safePostgresUrl(url)} cannot be used (${maskUrlSecrets((error as Error).message)}). ${postgresFix(error)}`,
    )
  }
  // A throwing waker must not turn a durable commit into a failed one.
  const committed = new Emitter<void>({
    onListenerError: (error) => options.log?.error('a commit notice listener threw', { error }),
  })
  const wake = () => committed.fire()
  const listen = await listenForCommits(config.value, reads, wake, options.log)
  const poll = pollForCommits(reads, wake, () => committed.listenerCount > 0 && listen.mode() !== 'notify', {
    everyMs: options.wakePollMs ?? 250,
  })
  const committer = postgresCommitter(
    pool,
    parallel,
    wake,
    deadlineMs,
    options.noticeEveryMs ?? 50,
    options.log,
  )

  return ok({
    kind: 'postgres',
    where: safePostgresUrl(url),
    wakeups: (): Wakeups =>
      listen.mode() === 'notify'
        ? { mode: 'notify', detail: 'LISTEN/NOTIFY' }
        : {
            mode: 'poll',
            detail: `polling every ${options.wakePollMs ?? 250} ms (LISTEN/NOTIFY does not arrive here, e.g. PgBouncer in transaction mode)`,
          },
    committer,
    retention: postgresRetentionTarget(pool),
    readAfter: (after, limit, withRemaining) => readAfter(reads, after, limit, withRemaining),
    identity,
    positionFacts: (position) => positionFacts(reads, position),
    positionOfNewest: (ids) => positionOfNewest(reads, ids),
    onCommitted: committed.event,
    tokens: {
      async create(name, hash, at, scope) {
        const { rowCount } = await pool.query(
          `INSERT INTO relay_tokens (name, hash, created_at, scope) VALUES ($1, $2, $3, $4)
           ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at,
             scope = excluded.scope, revoked_at = NULL
           WHERE relay_tokens.revoked_at IS NOT NULL`,
          [name, hash, at, scope],
        )
        return rowCount === 1
          ? ok(undefined)
          : err('conflict', `A token named ${name} exists. Revoke it first, or pick another name.`)
      },
      async list() {
        const { rows } = await reads.query<{
          name: string
          created_at: number
          revoked_at: number | null
          scope: TokenScope
        }>('SELECT name, created_at, revoked_at, scope FROM relay_tokens ORDER BY name')
        return rows.map((r) => ({
          name: r.name,
          createdAt: r.created_at,
          revokedAt: r.revoked_at,
          scope: r.scope,
        }))
      },
      async revoke(name, at) {
        const { rowCount } = await pool.query(
          'UPDATE relay_tokens SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL',
          [name, at],
        )
        return rowCount === 1
      },
      async lookup(hash) {
        const { rows } = await reads.query<{ name: string; scope: TokenScope }>(
          'SELECT name, scope FROM relay_tokens WHERE hash = $1 AND revoked_at IS NULL',
          [hash],
        )
        return rows[0] ?? null
      },
    },
    async recentRejections(limit) {
      const { rows } = await reads.query<Rejection>(
        'SELECT at, path, status, reason, size, remote FROM webhook_rejections ORDER BY seq DESC LIMIT $1',
        [limit],
      )
      return rows
    },
    async list(filter, after, limit) {
      const where = pgFilter(filter)
      const params = [...where.params]
      let keyset = ''
      if (after) {
        params.push(after.receivedAt, after.seq)
        keyset = ` AND (received_at, seq) < ($${params.length - 1}, $${params.length})`
      }
      params.push(limit)
      const { rows } = await reads.query<EventRow>(
        `SELECT ${pgSummaryColumns} FROM events WHERE ${where.sql}${keyset}
         ORDER BY received_at DESC, seq DESC LIMIT $${params.length}`,
        params,
      )
      const last = rows.at(-1)
      return {
        rows: rows.map(toSummary),
        next: rows.length === limit && last ? { receivedAt: last.received_at, seq: last.seq } : null,
      }
    },
    async get(id) {
      const { rows } = await reads.query<DetailRow>(
        `SELECT ${pgBaseColumns}, data, body, conflict_body FROM events WHERE id = $1`,
        [id],
      )
      const row = rows[0]
      return row ? toDetail(row) : null
    },
    async close() {
      await committer.close()
      poll.close()
      await listen.close()
      await Promise.all([pool.end(), reads.end()])
    },
  })
}

const pgBaseColumns =
  'seq, id, type, grp, created_at, created_ms, received_at, last_delivery_at, deliveries, endpoint, data_id, conflicts, NULL::text AS source'
const pgSummaryColumns = `${pgBaseColumns}, CASE WHEN type LIKE 'funding.%' THEN data END AS data`

function pgFilter(filter: EventFilter): { sql: string; params: unknown[] } {
  return filterSql(filter, postgresDialect)
}

/** `txid.seq`; `0` (or empty) is the start. */
export function parsePgCursor(cursor: string): [number, number] | null {
  if (cursor === '' || cursor === '0') return [0, 0]
  const m = /^(\d{1,18})\.(\d{1,18})$/.exec(cursor)
  return m ? [Number(m[1]), Number(m[2])] : null
}

/** Rows are read in (txid, seq) order and only below the oldest transaction still running in the
 * statement's snapshot (pg_snapshot_xmin): every transaction with a smaller id has either
 * committed (its rows are visible now) or aborted. A transaction that started earlier but commits
 * later has a txid at or above that bound, so its rows come after the cursor, never behind it. */
async function readAfter(
  pool: pg.Pool,
  after: string,
  limit: number,
  withRemaining = false,
): Promise<Result<SyncPage>> {
  const cursor = parsePgCursor(after)
  if (!cursor) return err('bad_request', notAPgCursor(after))
  const { rows } = await pool.query<SyncRow & { txid: number; bound: number }>(
    `WITH bound AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin)
     SELECT txid, ${syncColumns}
     FROM events, bound
     WHERE (txid, seq) > ($1, $2) AND txid < bound.xmin
     ORDER BY txid, seq LIMIT $3`,
    [cursor[0], cursor[1], limit],
  )
  const events = rows.map((r) => toSyncEvent(r, `${r.txid}.${r.seq}`))
  const next = events.at(-1)?.cursor ?? (after || '0')
  const page: SyncPage = { events, next }
  if (withRemaining) {
    const [t, s] = parsePgCursor(next)!
    const { rows: counted } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events
       WHERE (txid, seq) > ($1, $2) AND txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`,
      [t, s],
    )
    page.remaining = counted[0]?.n ?? 0
  }
  return ok(page)
}

/** The store's identity, made once and kept in relay_meta (`store`): every relay on this database
 * gives the same one. */
async function pgStoreIdentity(pool: pg.Pool): Promise<string> {
  await pool.query("INSERT INTO relay_meta (key, value) VALUES ('store', $1) ON CONFLICT (key) DO NOTHING", [
    newStoreIdentity(),
  ])
  const { rows } = await pool.query<{ value: string }>("SELECT value FROM relay_meta WHERE key = 'store'")
  return rows[0]!.value
}

const notAPgCursor = (text: string) =>
  `"${text}" is not a cursor of this relay (PostgreSQL positions look like 1234.56): read from after=0, or re-anchor with /sync/anchor.`

/** The event at (txid, seq), and whether that position lies beyond the newest row (one statement:
 * both from the same snapshot). */
async function positionFacts(
  pool: pg.Pool,
  position: string,
): Promise<Result<{ idAt: string | null; pastEnd: boolean }>> {
  const at = parsePgCursor(position)
  if (!at) return err('bad_request', notAPgCursor(position))
  const { rows } = await pool.query<{ id_at: string | null; past_end: boolean }>(
    `WITH newest AS (SELECT txid, seq FROM events ORDER BY txid DESC, seq DESC LIMIT 1)
     SELECT (SELECT id FROM events WHERE txid = $1 AND seq = $2) AS id_at,
            NOT EXISTS (SELECT 1 FROM newest WHERE (txid, seq) >= ($1::bigint, $2::bigint)) AS past_end`,
    [at[0], at[1]],
  )
  return ok({ idAt: rows[0]?.id_at ?? null, pastEnd: rows[0]?.past_end ?? true })
}

/** Only rows a read can return now (below the oldest running transaction): an anchor after a row
 * of a transaction that is still committing could pass over an earlier one. */
async function positionOfNewest(
  pool: pg.Pool,
  ids: string[],
): Promise<{ id: string; position: string } | null> {
  if (ids.length === 0) return null
  const { rows } = await pool.query<{ id: string; txid: number; seq: number }>(
    `SELECT id, txid, seq FROM events
     WHERE id = ANY($1::text[]) AND txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint
     ORDER BY txid DESC, seq DESC LIMIT 1`,
    [ids],
  )
  const row = rows[0]
  return row ? { id: row.id, position: `${row.txid}.${row.seq}` } : null
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
async function preparedSchema(
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

/** A dedicated connection LISTENing for commits of any relay on this database; reconnects with
 * back-off. After LISTEN it sends itself a probe through the pool: behind PgBouncer in
 * transaction mode the LISTEN lands on a server connection that is handed to others at once and
 * the probe never arrives, so the relay says so and its streams are woken by polling instead. */
async function listenForCommits(
  config: pg.ClientConfig,
  pool: pg.Pool,
  wake: () => void,
  log?: Logger,
): Promise<{ mode(): 'notify' | 'poll'; close(): Promise<void> }> {
  let client: pg.Client | null = null
  let closed = false
  let delay = 250
  let timer: NodeJS.Timeout | null = null
  const connect = async () => {
    timer = null
    if (closed) return
    const c = new pg.Client(config)
    const probe = `probe:${randomUUID()}`
    let probed = () => {}
    // Set when the probe did not arrive: this connection is closed on purpose, not retried.
    let abandoned = false
    c.on('notification', (n) => {
      if (n.payload === probe) probed()
      else if (!n.payload?.startsWith('probe:')) wake()
    })
    c.on('error', (error) => {
      if (abandoned) return
      log?.warn('the commit notification connection failed; reconnecting', { error: error.message })
      retry(c)
    })
    c.on('end', () => abandoned || retry(c))
    try {
      await c.connect()
      await c.query(`LISTEN ${notifyChannel}`)
      const arrived = new Promise<boolean>((resolve) => {
        probed = () => resolve(true)
        setTimeout(() => resolve(false), probeWaitMs).unref()
      })
      await pool.query('SELECT pg_notify($1, $2)', [notifyChannel, probe])
      if (!(await arrived)) {
        abandoned = true
        log?.info('LISTEN/NOTIFY does not arrive here (PgBouncer in transaction mode?); streams poll instead')
        await c.end().catch(() => {})
        return
      }
      client = c
      delay = 250
      wake()
    } catch {
      retry(c)
    }
  }
  const retry = (c: pg.Client) => {
    if (closed || timer) return
    if (client === c) client = null
    c.end().catch(() => {})
    timer = setTimeout(() => void connect(), delay)
    timer.unref()
    delay = Math.min(delay * 2, 5_000)
  }
  await connect()
  return {
    mode: () => (client ? 'notify' : 'poll'),
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await client?.end().catch(() => {})
    },
  }
}

const probeWaitMs = 2_000

/** While `needed()` (streams are open and notifications do not arrive), asks every `everyMs`
 * whether anything committed (the newest seq, and the snapshot bound the cursor reads below) and
 * wakes the streams when it changed: one small query per relay, whatever the number of streams. */
function pollForCommits(
  pool: pg.Pool,
  wake: () => void,
  needed: () => boolean,
  { everyMs }: { everyMs: number },
): { close(): void } {
  let last = ''
  let busy = false
  const timer = setInterval(() => {
    if (busy || !needed()) return
    busy = true
    pool
      .query<{ seq: number | null; xmin: string }>(
        'SELECT (SELECT max(seq) FROM events) AS seq, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin',
      )
      .then(({ rows }) => {
        const now = `${rows[0]?.seq}/${rows[0]?.xmin}`
        if (now !== last) {
          last = now
          wake()
        }
      })
      // A failing store is reported by the commit path and its probe; the streams' own timer
      // still re-reads meanwhile.
      .catch(() => {})
      .finally(() => (busy = false))
  }, everyMs)
  timer.unref()
  return { close: () => clearInterval(timer) }
}

// ── the write side ──────────────────────────────────────────────────────────────────────────

/** What a redelivery returns of the row it found (a new row is what this relay sent: itemOf builds
 * it from the params, so PostgreSQL neither hashes nor sends back what the relay already has). */
const storedColumns = [
  'type',
  'grp',
  'created_at',
  'created_ms',
  'received_at',
  'last_delivery_at',
  'endpoint',
  'data_id',
  'conflicts',
  "CASE WHEN type LIKE 'funding.%' THEN data END",
  "encode(sha256(body), 'hex')",
] as const
type Stored = [
  type: string,
  grp: string,
  created_at: string,
  created_ms: number | null,
  received_at: number,
  last_delivery_at: number,
  endpoint: string | null,
  data_id: string | null,
  conflicts: number,
  data: string | null,
  bodyHash: string,
]

const upsertSql = `
  INSERT INTO events AS e (id, type, grp, created_at, created_ms, received_at, last_delivery_at, deliveries, endpoint, data_id, body, data)
  SELECT id, type, grp, created_at, created_ms, at, at, 1, endpoint, data_id, body, data
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::bytea[], $10::text[])
    AS t(id, type, grp, created_at, created_ms, at, endpoint, data_id, body, data)
  -- A stored row another session holds (FOR UPDATE, an update under way) is left out at once
  -- rather than waited for (lock_timeout held the whole group for up to 1 s): that id alone gets
  -- no row back and is answered 503 (lockedItem); the rest of the group goes on.
  WHERE t.id IN (SELECT h.id FROM events h WHERE h.id = ANY($1::text[]) ORDER BY h.id FOR UPDATE SKIP LOCKED)
     OR NOT EXISTS (SELECT 1 FROM events x WHERE x.id = t.id)
  ON CONFLICT (id) DO UPDATE SET
    deliveries = e.deliveries + 1,
    last_delivery_at = excluded.last_delivery_at,
    conflicts = e.conflicts + (e.body IS DISTINCT FROM excluded.body)::int,
    conflict_body = CASE WHEN e.body IS DISTINCT FROM excluded.body THEN excluded.body ELSE e.conflict_body END,
    -- A conflict moves the event to this transaction's place in the sync order: a console that
    -- already read it reads it again, with the conflict.
    txid = CASE WHEN e.body IS DISTINCT FROM excluded.body THEN pg_current_xact_id()::text::bigint ELSE e.txid END
  RETURNING seq, id, deliveries, CASE WHEN deliveries > 1 THEN json_build_array(${storedColumns.join(', ')}) END AS stored`

function columnsOf(events: EventParams[]): unknown[] {
  return [
    events.map((e) => e.id),
    events.map((e) => e.type),
    events.map((e) => e.grp),
    events.map((e) => e.created_at),
    events.map((e) => e.created_ms),
    events.map((e) => e.at),
    events.map((e) => e.endpoint),
    events.map((e) => e.data_id),
    events.map((e) => Buffer.from(e.body.buffer, e.body.byteOffset, e.body.byteLength)),
    events.map((e) => e.data),
  ]
}

/** SQLSTATE classes that belong to one delivery's data (a NUL in a text, a value too long): that
 * delivery is refused alone. Anything else (connection, disk, shutdown) fails the transaction. */
const isDataError = (code: string | undefined) => !!code && /^(22|23|54)/.test(code) && code !== '23505'
/** Two relays locking the same new ids in another order, or a serialization failure: try again. */
const isRetryable = (code: string | undefined) => code === '40P01' || code === '40001'

function failureOf(error: unknown): StorageFailure {
  const e = error as { code?: unknown; message?: unknown }
  return {
    code: typeof e?.code === 'string' ? e.code : null,
    message: typeof e?.message === 'string' ? e.message : String(error),
  }
}

type Request = {
  events: EventParams[]
  rejections: Rejection[]
  resolve: (r: CommitResult) => void
}

/** Group commit on PostgreSQL: up to `parallel` transactions at once; whatever queues meanwhile is
 * joined into the next one (one round trip per statement and one WAL flush for all of them).
 * While groups commit, the next one starts only once it holds at least as many deliveries as all
 * of them together (PostgreSQL's commit_siblings idea, without its timer): under load the groups
 * stay large — every group costs PostgreSQL ~70 µs of CPU besides its rows, and each of two relays
 * sharing the load would otherwise send groups half the size — while a delivery that finds
 * nothing committing starts at once, so low load keeps its latency. The wait is bounded by the
 * groups in flight: when the last one ends, whatever queued starts.
 * Every request has a deadline: past it, it is answered as failed (`STALLED`) whether or not its
 * transaction still runs, and dropped from the queue if it had not started, so a frozen server
 * means 503s after `deadlineMs`, never senders kept waiting nor a queue growing without bound. */
export function postgresCommitter(
  pool: pg.Pool,
  parallel: number,
  committed: () => void,
  deadlineMs = defaultCommitDeadlineMs,
  noticeEveryMs = 50,
  log?: Logger,
): Committer {
  const queue: Request[] = []
  const notifier = commitNotifier(pool, noticeEveryMs)
  const named: NamedStatements = { on: true, log }
  let running = 0
  let closed = false
  const idle: (() => void)[] = []

  /** Deliveries in the groups committing now, and in the queue (a request of rejections alone
   * counts as one). */
  let committing = 0
  let queued = 0
  const pump = () => {
    while (running < parallel && queue.length > 0 && (running === 0 || queued >= committing)) {
      const group = queue.splice(0, queue.length)
      const size = queued
      queued = 0
      committing += size
      running++
      void commitGroup(group).finally(() => {
        committing -= size
        running--
        if (running === 0 && queue.length === 0) idle.splice(0).forEach((r) => r())
        pump()
      })
    }
  }

  async function commitGroup(group: Request[]): Promise<void> {
    const events = group.flatMap((r) => r.events)
    const rejections = group.flatMap((r) => r.rejections)
    let outcome: { ok: true; items: ItemResult[] } | { ok: false; failure: StorageFailure }
    for (let attempt = 0; ; attempt++) {
      try {
        outcome = { ok: true, items: await commitEvents(pool, named, events, rejections) }
        break
      } catch (error) {
        const failure = failureOf(error)
        if (isRetryable(failure.code ?? undefined) && attempt < 5) continue
        outcome = { ok: false, failure }
        break
      }
    }
    if (outcome.ok && outcome.items.some(changedOthers)) notifier.soon()
    if (outcome.ok && events.length > 0) committed()
    let offset = 0
    for (const r of group) {
      const reply: CommitReply = outcome.ok
        ? { id: 0, ok: true, items: outcome.items.slice(offset, offset + r.events.length) }
        : { id: 0, ok: false, failure: outcome.failure }
      offset += r.events.length
      r.resolve(resultOf(reply))
    }
  }

  const stalled = (): CommitResult => ({
    ok: false,
    failure: { code: stalledCode, message: `PostgreSQL did not commit within ${deadlineMs} ms` },
  })

  return {
    commit(events, rejections) {
      if (closed)
        return Promise.resolve({ ok: false, failure: { code: 'CLOSED', message: 'the relay is stopping' } })
      return new Promise((resolve) => {
        let settled = false
        const request: Request = {
          events,
          rejections,
          resolve(result) {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resolve(result)
          },
        }
        const timer = setTimeout(() => {
          const at = queue.indexOf(request)
          if (at >= 0) {
            queue.splice(at, 1)
            queued -= Math.max(1, events.length)
          }
          request.resolve(stalled())
        }, deadlineMs)
        queue.push(request)
        queued += Math.max(1, events.length)
        pump()
      })
    },
    async alive(_run, at) {
      try {
        await pool.query(
          `INSERT INTO relay_meta (key, value) VALUES ('probe', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [String(at)],
        )
        return null
      } catch (error) {
        return failureOf(error)
      }
    },
    async close() {
      closed = true
      if (running > 0 || queue.length > 0) await new Promise<void>((r) => idle.push(r))
      await notifier.flushed()
    },
  }
}

/** Whether followers of other relays have something to read after this item: a new event or a
 * conflict (a plain redelivery changes nothing they are sent). */
const changedOthers = (i: ItemResult) => i.ok && (i.row.deliveries === 1 || i.row.conflicted === 1)

/** Tells the other relays on this database that something committed, AFTER the commit and in a
 * transaction of its own, at most one every `everyMs` (commits meanwhile are told by one notice
 * at the end of the interval). Not inside the commit: PostgreSQL serialises every committing
 * transaction that has queued a NOTIFY on one database-wide lock held through its WAL flush, so
 * commits that notify cannot share a flush — with six commits in flight per relay that lock was
 * where two relays queued behind each other (docs/benchmarks.md#relay). Not after every commit
 * either: a notice is a transaction of its own that every listening backend and relay handles, and
 * one per group cost PostgreSQL about as much CPU as the group's INSERT; the other relays' change
 * feeds read once per 100 ms window anyway (change-feed.ts, coalesceMs). The first commit after a
 * quiet interval is told at once, so a lone delivery reaches other relays' streams as soon as
 * before. The notice needs no durability: `synchronous_commit` is off for its transaction alone.
 * This relay's own streams are woken in-process, without it. */
export function commitNotifier(
  pool: Pick<pg.Pool, 'query'>,
  everyMs: number,
): { soon(): void; flushed(): Promise<void> } {
  let sending: Promise<void> | null = null
  let timer: NodeJS.Timeout | null = null
  /** A commit not yet told: sent when the interval since the last notice has passed. */
  let owed = false
  let lastAt = -Infinity
  const send = (): void => {
    if (timer) clearTimeout(timer)
    timer = null
    owed = false
    lastAt = performance.now()
    sending = pool
      .query(`SELECT set_config('synchronous_commit', 'off', true), pg_notify('${notifyChannel}', '')`)
      .then(
        () => {},
        // A lost notice only delays other relays' streams until their next timer read; the
        // commit path and its probe report a failing store.
        () => {},
      )
      .finally(() => {
        sending = null
        if (owed) later()
      })
  }
  const later = (): void => {
    if (timer || sending) return
    const wait = lastAt + everyMs - performance.now()
    if (wait <= 0) return send()
    timer = setTimeout(() => {
      timer = null
      if (owed) later()
    }, wait)
    timer.unref()
  }
  return {
    soon() {
      owed = true
      later()
    },
    // On close: what is still owed is told now, not at the end of the interval.
    async flushed() {
      await sending
      if (owed) send()
      await sending
    },
  }
}

/** The rejections of a group, and the cap on the log (the newest 10,000 kept). The cap deletes
 * only rows no other session holds (SKIP LOCKED): two relays pruning the same old rows at once
 * must not make one commit wait for the other's. */
const insertRejectionsSql = (
  first: number,
) => `INSERT INTO webhook_rejections (at, path, status, reason, size, remote)
  SELECT * FROM unnest(${['bigint', 'text', 'int', 'text', 'int', 'text'].map((t, i) => `$${first + i}::${t}[]`).join(', ')})`
const pruneRejectionsSql = `DELETE FROM webhook_rejections WHERE seq IN (
  SELECT seq FROM webhook_rejections WHERE seq <= (SELECT max(seq) FROM webhook_rejections) - 10000
  FOR UPDATE SKIP LOCKED)`

function rejectionColumns(rejections: Rejection[]): unknown[] {
  return [
    rejections.map((r) => r.at),
    rejections.map((r) => r.path.replace(/\0/g, '')),
    rejections.map((r) => r.status),
    rejections.map((r) => r.reason.replace(/\0/g, '')),
    rejections.map((r) => r.size),
    rejections.map((r) => r.remote),
  ]
}

/** A whole group in one statement, rejections included (data-modifying CTEs run once each, in
 * the statement's one transaction). */
const upsertWithRejectionsSql = `WITH ins AS (${upsertSql}),
  rejected AS (${insertRejectionsSql(11)}),
  pruned AS (${pruneRejectionsSql})
  SELECT * FROM ins`

/** Whether the group statement goes as a named (prepared) statement: PostgreSQL then parses and
 * plans it once per connection instead of once per group, which was about 135 µs of its CPU per
 * group — as much as ten rows' inserts (docs/benchmarks.md#relay). Behind PgBouncer in
 * transaction mode (before 1.21, or without max_prepared_statements) a transaction may land on a
 * server connection that never saw the statement (26000) or already has it from another client
 * (42P05): the first such answer turns names off for this store and the group goes again unnamed
 * (nothing ran). The name is a hash of the text, so a server connection shared through PgBouncer
 * never runs another version's statement under the same name. */
export interface NamedStatements {
  on: boolean
  /** Told once when names go off (the start line said nothing about it). */
  log?: Logger
}

const preparedNameOf = (text: string) =>
  `watchdesk_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`
const preparedNames = new Map([upsertSql, upsertWithRejectionsSql].map((t) => [t, preparedNameOf(t)]))
/** invalid_sql_statement_name, duplicate_prepared_statement */
const isUnpreparedCode = (code: string | undefined) => code === '26000' || code === '42P05'

async function groupQuery(
  pool: pg.Pool,
  named: NamedStatements,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<ReturnedRow>> {
  if (!named.on) return pool.query<ReturnedRow>(text, values)
  try {
    return await pool.query<ReturnedRow>({ name: preparedNames.get(text), text, values })
  } catch (error) {
    const code = failureOf(error).code ?? undefined
    if (!isUnpreparedCode(code)) throw error
    named.on = false
    named.log?.info(
      'PostgreSQL does not keep prepared statements for this relay (PgBouncer in transaction mode?): each group is planned again; with PgBouncer 1.21 or later set max_prepared_statements',
      { code },
    )
    return pool.query<ReturnedRow>(text, values)
  }
}

/** The common case in one round trip: no id twice in the group, so a single INSERT … ON CONFLICT
 * (with the group's rejections) is the whole transaction (autocommit: durable when it returns).
 * The commit notice follows it (commitNotifier). A data error falls back to `transaction`, which
 * refuses the poison delivery alone. */
async function commitEvents(
  pool: pg.Pool,
  named: NamedStatements,
  events: EventParams[],
  rejections: Rejection[],
): Promise<ItemResult[]> {
  const single = new Set(events.map((e) => e.id)).size === events.length
  if (single && events.length + rejections.length > 0) {
    try {
      const sorted = [...events].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      const { rows } = await groupQuery(
        pool,
        named,
        rejections.length > 0 ? upsertWithRejectionsSql : upsertSql,
        rejections.length > 0 ? [...columnsOf(sorted), ...rejectionColumns(rejections)] : columnsOf(sorted),
      )
      const byId = new Map(rows.map((r) => [r.id, r]))
      return events.map((e) => itemOf(e, byId.get(e.id)))
    } catch (error) {
      const code = failureOf(error).code ?? undefined
      // Another session holds the row of one of these ids: store the others, refuse that one now.
      if (code === lockNotAvailable) return transaction(pool, events, rejections, true)
      if (!isDataError(code)) throw error
    }
  }
  return transaction(pool, events, rejections)
}

/** lock_timeout ran out. */
const lockNotAvailable = '55P03'

/** One transaction: the events in rounds (an id at most once per statement, as ON CONFLICT DO
 * UPDATE requires), each round sorted by id so two relays lock the same ids in the same order. A
 * data error makes that round go again one event per savepoint, so a poison delivery fails alone. */
async function transaction(
  pool: pg.Pool,
  events: EventParams[],
  rejections: Rejection[],
  skipLocked = false,
): Promise<ItemResult[]> {
  const client = await pool.connect()
  let broken = false
  try {
    await client.query('BEGIN')
    const items: ItemResult[] = new Array(events.length)
    const locked = skipLocked ? await lockedIds(client, events) : new Set<string>()
    events.forEach((e, i) => {
      if (locked.has(e.id)) items[i] = lockedItem
    })
    const free = events.map((e, i) => i).filter((i) => !locked.has(events[i]!.id))
    for (const round of roundsOf(free.map((i) => events[i]!)).map((r) => r.map((j) => free[j]!))) {
      await client.query('SAVEPOINT round')
      try {
        const rows = await upsert(
          client,
          round.map((i) => events[i]!),
        )
        for (const i of round) items[i] = itemOf(events[i]!, rows.get(events[i]!.id))
        await client.query('RELEASE SAVEPOINT round')
      } catch (error) {
        await client.query('ROLLBACK TO SAVEPOINT round')
        if (!isDataError(failureOf(error).code ?? undefined)) throw error
        for (const i of round) items[i] = await oneByOne(client, events[i]!)
      }
    }
    if (rejections.length > 0) {
      await client.query(insertRejectionsSql(1), rejectionColumns(rejections))
      await client.query(pruneRejectionsSql)
    }
    await client.query('COMMIT')
    return items
  } catch (error) {
    try {
      await client.query('ROLLBACK')
    } catch {
      broken = true
    }
    throw error
  } finally {
    client.release(broken)
  }
}

/** The ids among `events` whose row another session has locked (FOR UPDATE, or an update still
 * running). The others are locked here (SKIP LOCKED never waits), so this transaction can update
 * them; the locked ones are answered 503 at once instead of stalling the whole batch. */
async function lockedIds(client: PoolClient, events: EventParams[]): Promise<Set<string>> {
  const ids = [...new Set(events.map((e) => e.id))].sort()
  const { rows } = await client.query<{ id: string }>(
    `WITH free AS (SELECT id FROM events WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE SKIP LOCKED)
     SELECT id FROM events WHERE id = ANY($1::text[]) AND id NOT IN (SELECT id FROM free)`,
    [ids],
  )
  return new Set(rows.map((r) => r.id))
}

async function oneByOne(client: PoolClient, event: EventParams): Promise<ItemResult> {
  await client.query('SAVEPOINT one')
  try {
    const rows = await upsert(client, [event])
    await client.query('RELEASE SAVEPOINT one')
    return itemOf(event, rows.get(event.id))
  } catch (error) {
    await client.query('ROLLBACK TO SAVEPOINT one')
    const failure = failureOf(error)
    if (!isDataError(failure.code ?? undefined)) throw error
    return { ok: false, code: failure.code, message: failure.message }
  }
}

/** `stored` only for a redelivery (deliveries > 1). */
type ReturnedRow = { seq: number; id: string; deliveries: number; stored: Stored | null }

async function upsert(client: PoolClient, events: EventParams[]): Promise<Map<string, ReturnedRow>> {
  const { rows } = await client.query<ReturnedRow>(upsertSql, columnsOf(events))
  return new Map(rows.map((r) => [r.id, r]))
}

/** An id whose stored row another session holds: answered 503 now, stored when it is sent again. */
const lockedItem: ItemResult = {
  ok: false,
  code: lockNotAvailable,
  message: 'its row is locked by another database session',
  retryable: true,
}

/** No row back: the statement left the id out because another session holds its row (upsertSql). */
function itemOf(event: EventParams, row: ReturnedRow | undefined): ItemResult {
  if (!row) return lockedItem
  return {
    ok: true,
    row: row.stored === null ? insertedRow(event, row.seq) : storedRow(event, row, row.stored),
  }
}

/** A row this statement inserted: this delivery as sent, with the table's defaults. */
function insertedRow(event: EventParams, seq: number): CommittedRow {
  return {
    seq,
    id: event.id,
    type: event.type,
    grp: event.grp,
    created_at: event.created_at,
    created_ms: event.created_ms,
    received_at: event.at,
    last_delivery_at: event.at,
    deliveries: 1,
    endpoint: event.endpoint,
    data_id: event.data_id,
    conflicts: 0,
    source: null,
    data: event.type.startsWith('funding.') ? event.data : null,
    conflicted: 0,
  }
}

/** A row a redelivery found: as stored, `conflicted` when this delivery's body differs. */
function storedRow(event: EventParams, row: ReturnedRow, stored: Stored): CommittedRow {
  const [
    type,
    grp,
    created_at,
    created_ms,
    received_at,
    last_delivery_at,
    endpoint,
    data_id,
    conflicts,
    data,
    hash,
  ] = stored
  return {
    seq: row.seq,
    id: row.id,
    type,
    grp,
    created_at,
    created_ms,
    received_at,
    last_delivery_at,
    deliveries: row.deliveries,
    endpoint,
    data_id,
    conflicts,
    source: null,
    data,
    conflicted: createHash('sha256').update(event.body).digest('hex') === hash ? 0 : 1,
  }
}

/** Indexes of `events` split so that an id appears once per round; each round sorted by id. */
function roundsOf(events: EventParams[]): number[][] {
  const rounds: number[][] = []
  const seen = new Map<string, number>()
  events.forEach((e, i) => {
    const n = seen.get(e.id) ?? 0
    seen.set(e.id, n + 1)
    ;(rounds[n] ??= []).push(i)
  })
  return rounds.map((r) =>
    r.sort((a, b) => (events[a]!.id < events[b]!.id ? -1 : events[a]!.id > events[b]!.id ? 1 : 0)),
  )
}
