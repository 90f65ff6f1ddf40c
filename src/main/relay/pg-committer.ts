import { createHash } from 'node:crypto'
import type pg from 'pg'
import type { PoolClient } from 'pg'
import type { Rejection } from '../../shared/contract/events'
import type { Logger } from '../log'
import type { CommittedItem, ItemResult, StorageFailure } from '../webhooks'
import { committedResultOf } from '../webhooks'
import type { CommitResult, Committer } from '../webhooks'
import type { CommittedRow, EventParams } from '../webhooks'
import { defaultCommitDeadlineMs } from './pg-connection'
import { commitNotifier } from './pg-notify'
import { bigintArray, byteaArray, textArray } from './pg-binary-arrays'
import { stalledCode } from './store'

// ── the write side: group commit on PostgreSQL ─────────────────────────────────────────────

/** What a redelivery returns of the row it found, field by field as the SQL that reads it (a new
 * row is what this relay sent: itemOf builds it from the params, so PostgreSQL neither hashes nor
 * sends back what the relay already has). One list: the statement's array and the row's fields. */
const storedFields = {
  type: 'type',
  grp: 'grp',
  created_at: 'created_at',
  created_ms: 'created_ms',
  received_at: 'received_at',
  last_delivery_at: 'last_delivery_at',
  endpoint: 'endpoint',
  data_id: 'data_id',
  conflicts: 'conflicts',
  data: "CASE WHEN type LIKE 'funding.%' THEN data END",
  hash: "encode(sha256(body), 'hex')",
} as const satisfies Partial<Record<keyof CommittedRow, string>> & { hash: string }
const storedColumns = Object.values(storedFields)
/** The stored row's fields, in storedFields' order (json_build_array). */
type Stored = unknown[]
type StoredRow = Pick<CommittedRow, Exclude<keyof typeof storedFields, 'hash'>> & { hash: string }

const upsertSql = `
  INSERT INTO events AS e (id, type, grp, created_at, created_ms, received_at, last_delivery_at, deliveries, endpoint, data_id, body, data)
  SELECT id, type, grp, created_at, created_ms, at, at, 1, endpoint, data_id, body, data
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::bytea[], $10::text[])
    AS t(id, type, grp, created_at, created_ms, at, endpoint, data_id, body, data)
  -- A stored row another session holds (FOR UPDATE, an update under way) is left out at once
  -- rather than waited for (lock_timeout held the whole group for up to 1 s): that id alone gets
  -- no row back and is answered 503 (lockedItem); the rest of the group goes on. A new id is
  -- inserted; a stored one is locked here first (the ids come sorted, so two relays lock in the
  -- same order). Both lookups are per id, through the id index, in whatever plan PostgreSQL
  -- keeps: as IN / NOT EXISTS they could be hashed, and the plan a connection keeps for this
  -- named statement is made on the first groups, when the table is empty (a Seq Scan is
  -- cheapest then); kept as the table grew, every group read all of it twice (issue 35: 75 % of
  -- PostgreSQL's CPU at 1,000/s after 20 s; docs/benchmarks.md).
  WHERE (SELECT x.id FROM events x WHERE x.id = t.id) IS NULL
     OR (SELECT h.id FROM events h WHERE h.id = t.id FOR UPDATE SKIP LOCKED) IS NOT NULL
  ON CONFLICT (id) DO UPDATE SET
    deliveries = e.deliveries + 1,
    last_delivery_at = excluded.last_delivery_at,
    conflicts = e.conflicts + (e.body IS DISTINCT FROM excluded.body)::int,
    conflict_body = CASE WHEN e.body IS DISTINCT FROM excluded.body THEN excluded.body ELSE e.conflict_body END,
    -- A conflict moves the event to this transaction's place in the sync order: a console that
    -- already read it reads it again, with the conflict.
    txid = CASE WHEN e.body IS DISTINCT FROM excluded.body THEN pg_current_xact_id()::text::bigint ELSE e.txid END
  RETURNING seq, id, deliveries, CASE WHEN deliveries > 1 THEN json_build_array(${storedColumns.join(', ')}) END AS stored`

/** The group's ten arrays, in binary (pg-binary-arrays.ts): no quoting, escaping nor hex on
 * either side of the socket. */
function columnsOf(events: EventParams[]): unknown[] {
  return [
    textArray(events.map((e) => e.id)),
    textArray(events.map((e) => e.type)),
    textArray(events.map((e) => e.grp)),
    textArray(events.map((e) => e.created_at)),
    bigintArray(events.map((e) => e.created_ms)),
    bigintArray(events.map((e) => e.at)),
    textArray(events.map((e) => e.endpoint)),
    textArray(events.map((e) => e.data_id)),
    byteaArray(events.map((e) => e.body)),
    textArray(events.map((e) => e.data)),
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

/** How long ingest may hold a group for one PostgreSQL transaction (ingest.ts `groupWindowMs`:
 * about `targetPerCommit` deliveries' worth of the mean gap between arrivals, never longer than
 * `maxWaitMs`, none when fewer than one more is expected within it). Issue 35: at 1,000/s the
 * groups held 1.4–1.6 deliveries, so nearly every delivery paid a whole transaction — about
 * 450 µs of PostgreSQL's CPU and as much again in the relay (the round trip, the WAL flush, the
 * answer) against tens of µs per row. At 1,000/s the window is 7 ms (seven gaps: the eighth
 * delivery fills the group), so groups of about 8 form. With 5 ms (sessions 8–9) they held about
 * 5.5, and what each group costs besides its rows was still a large part of the CPU per delivery
 * (session 10, in-process at 1,000/s: groups of 6 cost 322–383 µs of relay + PostgreSQL CPU per
 * delivery, groups of 9 299–301; docs/benchmarks.md). 8 ms is a third of the 25 ms p99 budget (the
 * quiet runs' p99 was 12.6–18.6 ms with 5); at 125–200/s, where a delivery went alone, about two
 * now share one. At 100/s each delivery still goes alone and at once. The target is 10 (session
 * 12; 8 before): at 1,000/s the window is then the whole 8 ms and groups hold about 8.5 instead of
 * 7.5 (the quiet A/B after session 11: about 7 % less relay + PostgreSQL CPU per delivery, p99
 * 13–17 ms). A sender that keeps a fixed number of deliveries in flight (closed loop) sends nothing
 * more until they are answered, so a target above what it keeps in flight would hold its every
 * round for the whole window (with 32, test/main/relay/crash.test.ts took 57 s instead of 23 at
 * load 25–38): the relay's ingest therefore also sends a group at once when it holds a delivery
 * from every connection the listener holds (ingest.ts `openConnections`). Larger groups still form
 * under load: the committer joins what queues while groups commit. */
export type PostgresGrouping = NonNullable<Committer['grouping']>
export const postgresGrouping: PostgresGrouping = { maxWaitMs: 8, targetPerCommit: 10 }

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
 * means 503s after `deadlineMs`, never senders kept waiting nor a queue growing without bound.
 * `grouping` (null: none) is what ingest holds a group for before it reaches this queue. */
export function postgresCommitter(
  pool: pg.Pool,
  parallel: number,
  committed: () => void,
  deadlineMs = defaultCommitDeadlineMs,
  noticeEveryMs = 50,
  log?: Logger,
  grouping: PostgresGrouping | null = postgresGrouping,
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
    let outcome: { ok: true; items: CommittedItem[] } | { ok: false; failure: StorageFailure }
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
      const items = outcome.ok ? outcome.items.slice(offset, offset + r.events.length) : []
      offset += r.events.length
      // A first delivery's summary is made from the delivery ingest holds (its data as parsed), as
      // the console's commit path does: no row object, no second JSON.parse of the data.
      r.resolve(
        committedResultOf(
          outcome.ok ? { id: 0, ok: true, items } : { id: 0, ok: false, failure: outcome.failure },
          r.events,
        ),
      )
    }
  }

  const stalled = (): CommitResult => ({
    ok: false,
    failure: { code: stalledCode, message: `PostgreSQL did not commit within ${deadlineMs} ms` },
  })

  return {
    ...(grouping ? { grouping } : {}),
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
const changedOthers = (i: CommittedItem) =>
  'inserted' in i || (i.ok && (i.row.deliveries === 1 || i.row.conflicted === 1))

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
): Promise<CommittedItem[]> {
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
): Promise<CommittedItem[]> {
  const client = await pool.connect()
  let broken = false
  try {
    await client.query('BEGIN')
    const items: CommittedItem[] = new Array(events.length)
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

async function oneByOne(client: PoolClient, event: EventParams): Promise<CommittedItem> {
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

/** No row back: the statement left the id out because another session holds its row (upsertSql).
 * A row this statement inserted is this delivery as sent with its seq (committedResultOf makes its
 * summary, `insertedSummary`); a redelivery's is the row as stored. */
function itemOf(event: EventParams, row: ReturnedRow | undefined): CommittedItem {
  if (!row) return lockedItem
  return row.stored === null
    ? { ok: true, inserted: row.seq }
    : { ok: true, row: storedRow(event, row, row.stored) }
}

/** A row a redelivery found: as stored, `conflicted` when this delivery's body differs. */
function storedRow(event: EventParams, row: ReturnedRow, stored: Stored): CommittedRow {
  const fields = Object.keys(storedFields).map((field, i) => [field, stored[i]])
  const { hash, ...found } = Object.fromEntries(fields) as StoredRow
  const conflicted = createHash('sha256').update(event.body).digest('hex') === hash ? 0 : 1
  return { ...found, seq: row.seq, id: row.id, deliveries: row.deliveries, source: null, conflicted }
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
