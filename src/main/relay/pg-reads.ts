import type pg from 'pg'
import type { EventFilter, Rejection } from '../../shared/contract/events'
import { filterSql, postgresDialect } from '../../shared/events/filter'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { DetailRow, EventRow } from '../webhooks'
import { toDetail, toSummary } from '../webhooks'
import { syncColumns, toSyncEvent } from './store'
import type { RelayStore, SyncPage, SyncRow } from './store'

/** The read side of the PostgreSQL store, all on the read pool (a pool of its own, so followers
 * never take a connection a commit needs): the sync order, cursors, the event list and detail,
 * the rejection log. */
export function postgresReads(
  reads: pg.Pool,
): Pick<
  RelayStore,
  'readAfter' | 'positionFacts' | 'positionOfNewest' | 'recentRejections' | 'list' | 'get'
> {
  return {
    readAfter: (after, limit, withRemaining) => readAfter(reads, after, limit, withRemaining),
    positionFacts: (position) => positionFacts(reads, position),
    positionOfNewest: (ids) => positionOfNewest(reads, ids),
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
  }
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
  // The page and what remains after it are one statement, so one snapshot: a conflict rewriting a
  // row between two queries would count it on both sides of the page. The count (every row past the
  // cursor, an uncorrelated subquery run once, rows not kept) is asked for only when wanted.
  const { rows } = await pool.query<SyncRow & { txid: number; total?: number }>(
    `WITH bound AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin)
     SELECT txid, ${syncColumns}${withRemaining ? `, (SELECT count(*)::int FROM events, bound WHERE (txid, seq) > ($1, $2) AND txid < bound.xmin) AS total` : ''}
     FROM events, bound
     WHERE (txid, seq) > ($1, $2) AND txid < bound.xmin
     ORDER BY txid, seq LIMIT $3`,
    [cursor[0], cursor[1], limit],
  )
  const events = rows.map((r) => toSyncEvent(r, `${r.txid}.${r.seq}`))
  const next = events.at(-1)?.cursor ?? (after || '0')
  const page: SyncPage = { events, next }
  if (withRemaining) page.remaining = (rows[0]?.total ?? 0) - rows.length
  return ok(page)
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
