import { createHash } from 'node:crypto'
import pg from 'pg'
import type { PoolClient } from 'pg'
import type { EventFilter, Rejection } from '../../shared/contract/events'
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
import { toSyncEvent } from './store'
import type { RelayStore, SyncPage, SyncRow } from './store'

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
}

/** `postgres://user:secret@host/db?sslpassword=…` with every secret masked, for output, logs, error
 * messages and the sync API (the one masking function, shared/mask.ts). */
export const safePostgresUrl = (url: string): string => maskUrlSecrets(url)

export const defaultCommitDeadlineMs = 5_000
/** The code a commit past its deadline fails with (the storage status says "stalled"). */
export const stalledCode = 'STALLED'

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
  const poolOf = (max: number, queryTimeoutMs?: number) => {
    const p = new pg.Pool({
      connectionString: url,
      max,
      types,
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
  // Commits (and the probe) on one pool, every read on another: a hundred followers catching up
  // never make a delivery wait for a connection.
  const pool = poolOf(parallel + 1)
  // A read of a frozen server fails (and its connection is dropped) rather than hang a sync
  // request; commits keep their deadline instead (a transaction's connection must not be reused
  // while its statement may still run).
  const reads = poolOf(options.readConnections ?? 4, deadlineMs * 2)
  try {
    const client = await pool.connect()
    try {
      // Migrations wait for another relay's migration and may take long: no deadline for them.
      await client.query('SET statement_timeout = 0; SET lock_timeout = 0')
      await migratePostgres(client)
      await client.query(sessionSettings(deadlineMs))
    } finally {
      client.release()
    }
  } catch (error) {
    await Promise.all([pool.end().catch(() => {}), reads.end().catch(() => {})])
    return err(
      'unavailable',
      `PostgreSQL at ${safePostgresUrl(url)} cannot be used (${maskUrlSecrets((error as Error).message)}). Check the URL, that the server runs and that the user may create tables.`,
    )
  }
  const wakers = new Set<() => void>()
  const wake = () => wakers.forEach((w) => w())
  const listen = await listenForCommits(url, wake, options.log)
  const committer = postgresCommitter(pool, parallel, wake, deadlineMs)

  return ok({
    kind: 'postgres',
    where: safePostgresUrl(url),
    committer,
    readAfter: (after, limit, withRemaining) => readAfter(reads, after, limit, withRemaining),
    onCommitted(listener) {
      wakers.add(listener)
      return () => wakers.delete(listener)
    },
    tokens: {
      async create(name, hash, at) {
        const { rowCount } = await pool.query(
          `INSERT INTO relay_tokens (name, hash, created_at) VALUES ($1, $2, $3)
           ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at, revoked_at = NULL
           WHERE relay_tokens.revoked_at IS NOT NULL`,
          [name, hash, at],
        )
        return rowCount === 1
          ? ok(undefined)
          : err('conflict', `A token named ${name} exists. Revoke it first, or pick another name.`)
      },
      async list() {
        const { rows } = await reads.query<{ name: string; created_at: number; revoked_at: number | null }>(
          'SELECT name, created_at, revoked_at FROM relay_tokens ORDER BY name',
        )
        return rows.map((r) => ({ name: r.name, createdAt: r.created_at, revokedAt: r.revoked_at }))
      },
      async revoke(name, at) {
        const { rowCount } = await pool.query(
          'UPDATE relay_tokens SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL',
          [name, at],
        )
        return rowCount === 1
      },
      async nameOf(hash) {
        const { rows } = await reads.query<{ name: string }>(
          'SELECT name FROM relay_tokens WHERE hash = $1 AND revoked_at IS NULL',
          [hash],
        )
        return rows[0]?.name ?? null
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
      await listen.close()
      await Promise.all([pool.end(), reads.end()])
    },
  })
}

const pgBaseColumns =
  'seq, id, type, grp, created_at, created_ms, received_at, last_delivery_at, deliveries, endpoint, data_id, conflicts, NULL::text AS source'
const pgSummaryColumns = `${pgBaseColumns}, CASE WHEN type LIKE 'funding.%' THEN data END AS data`

function pgFilter(filter: EventFilter): { sql: string; params: unknown[] } {
  const parts: string[] = []
  const params: unknown[] = []
  const p = (value: unknown) => {
    params.push(value)
    return `$${params.length}`
  }
  if (filter.groups?.length) parts.push(`grp = ANY(${p(filter.groups)}::text[])`)
  if (filter.types?.length) parts.push(`type = ANY(${p(filter.types)}::text[])`)
  if (filter.from !== undefined) parts.push(`received_at >= ${p(filter.from)}`)
  if (filter.to !== undefined) parts.push(`received_at <= ${p(filter.to)}`)
  const search = filter.search?.trim()
  if (search) {
    const [lo, hi] = [p(search), p(search + '\uffff')]
    parts.push(`((id >= ${lo} AND id < ${hi}) OR (data_id >= ${lo} AND data_id < ${hi}))`)
  }
  return { sql: parts.length ? parts.join(' AND ') : 'true', params }
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
  if (!cursor)
    return err(
      'bad_request',
      `"${after}" is not a cursor of this relay (PostgreSQL cursors look like 1234.56).`,
    )
  const { rows } = await pool.query<SyncRow & { txid: number; bound: number }>(
    `WITH bound AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin)
     SELECT txid, seq, id, type, created_at, received_at, last_delivery_at, deliveries, endpoint, data_id, data, body
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

/** A dedicated connection LISTENing for commits of any relay on this database; reconnects with
 * back-off. Streams also re-read on a timer, so a lost notification only delays, never loses. */
async function listenForCommits(
  url: string,
  wake: () => void,
  log?: Logger,
): Promise<{ close(): Promise<void> }> {
  let client: pg.Client | null = null
  let closed = false
  let delay = 250
  let timer: NodeJS.Timeout | null = null
  const connect = async () => {
    timer = null
    if (closed) return
    const c = new pg.Client({ connectionString: url, types })
    c.on('notification', () => wake())
    c.on('error', (error) => {
      log?.warn('the commit notification connection failed; reconnecting', { error: error.message })
      retry(c)
    })
    c.on('end', () => retry(c))
    try {
      await c.connect()
      await c.query(`LISTEN ${notifyChannel}`)
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
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await client?.end().catch(() => {})
    },
  }
}

// ── the write side ──────────────────────────────────────────────────────────────────────────

const upsertSql = `
  INSERT INTO events AS e (id, type, grp, created_at, created_ms, received_at, last_delivery_at, deliveries, endpoint, data_id, body, data)
  SELECT id, type, grp, created_at, created_ms, at, at, 1, endpoint, data_id, body, data
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::bytea[], $10::text[])
    AS t(id, type, grp, created_at, created_ms, at, endpoint, data_id, body, data)
  ON CONFLICT (id) DO UPDATE SET
    deliveries = e.deliveries + 1,
    last_delivery_at = excluded.last_delivery_at,
    conflicts = e.conflicts + (e.body IS DISTINCT FROM excluded.body)::int,
    conflict_body = CASE WHEN e.body IS DISTINCT FROM excluded.body THEN excluded.body ELSE e.conflict_body END
  RETURNING ${pgSummaryColumns}, sha256(body) AS body_hash`

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
 * Every request has a deadline: past it, it is answered as failed (`STALLED`) whether or not its
 * transaction still runs, and dropped from the queue if it had not started, so a frozen server
 * means 503s after `deadlineMs`, never senders kept waiting nor a queue growing without bound. */
export function postgresCommitter(
  pool: pg.Pool,
  parallel: number,
  committed: () => void,
  deadlineMs = defaultCommitDeadlineMs,
): Committer {
  const queue: Request[] = []
  let running = 0
  let closed = false
  const idle: (() => void)[] = []

  const pump = () => {
    while (running < parallel && queue.length > 0) {
      const group = queue.splice(0, queue.length)
      running++
      void commitGroup(group).finally(() => {
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
        outcome = { ok: true, items: await commitEvents(pool, events, rejections) }
        break
      } catch (error) {
        const failure = failureOf(error)
        if (isRetryable(failure.code ?? undefined) && attempt < 5) continue
        outcome = { ok: false, failure }
        break
      }
    }
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
          const queued = queue.indexOf(request)
          if (queued >= 0) queue.splice(queued, 1)
          request.resolve(stalled())
        }, deadlineMs)
        queue.push(request)
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
    },
  }
}

/** The common case in one round trip: no id twice in the batch and no rejections, so a single
 * INSERT … ON CONFLICT is the whole transaction (autocommit: durable when it returns), with the
 * commit notice in the same statement. A data error falls back to `transaction`, which refuses
 * the poison delivery alone. */
const upsertAndNotifySql = `WITH ins AS (${upsertSql}),
  note AS (SELECT pg_notify('${notifyChannel}', '') AS sent)
  SELECT ins.* FROM ins LEFT JOIN note ON true`

async function commitEvents(
  pool: pg.Pool,
  events: EventParams[],
  rejections: Rejection[],
): Promise<ItemResult[]> {
  const single = rejections.length === 0 && new Set(events.map((e) => e.id)).size === events.length
  if (single && events.length > 0) {
    try {
      const sorted = [...events].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      const { rows } = await pool.query<ReturnedRow>(upsertAndNotifySql, columnsOf(sorted))
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
      if (locked.has(e.id))
        items[i] = {
          ok: false,
          code: lockNotAvailable,
          message: 'its row is locked by another database session',
          retryable: true,
        }
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
      await client.query(
        `INSERT INTO webhook_rejections (at, path, status, reason, size, remote)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::text[], $5::int[], $6::text[])`,
        [
          rejections.map((r) => r.at),
          rejections.map((r) => r.path.replace(/\0/g, '')),
          rejections.map((r) => r.status),
          rejections.map((r) => r.reason.replace(/\0/g, '')),
          rejections.map((r) => r.size),
          rejections.map((r) => r.remote),
        ],
      )
      await client.query(
        'DELETE FROM webhook_rejections WHERE seq <= (SELECT max(seq) FROM webhook_rejections) - 10000',
      )
    }
    if (items.some((i) => i.ok && i.row.deliveries === 1)) await client.query(`NOTIFY ${notifyChannel}`)
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

type ReturnedRow = EventRow & { body_hash: Buffer }

async function upsert(client: PoolClient, events: EventParams[]): Promise<Map<string, ReturnedRow>> {
  const { rows } = await client.query<ReturnedRow>(upsertSql, columnsOf(events))
  return new Map(rows.map((r) => [r.id, r]))
}

function itemOf(event: EventParams, row: ReturnedRow | undefined): ItemResult {
  if (!row) return { ok: false, code: null, message: 'the database returned no row for this event' }
  const hash = createHash('sha256').update(event.body).digest()
  const { body_hash, ...rest } = row
  const committed: CommittedRow = { ...rest, conflicted: body_hash.equals(hash) ? 0 : 1 }
  return { ok: true, row: committed }
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
