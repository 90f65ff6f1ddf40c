import type { Database, Statement } from 'better-sqlite3'
import type {
  EventCursor,
  EventDetail,
  EventFilter,
  EventSummary,
  Rejection,
} from '../../shared/contract/events'
import { fundingLine, groupOf } from '../../shared/events'
import type { SerializedEvent } from '../../shared/events/json'
import type { EventGroup } from '../../shared/events'
import type { Envelope } from './verify'
import { filterClause } from '../db/event-filter'
import { baseColumns, storedDataId, summaryColumns, summaryHasData } from './sql'
import type { EventParams, EventRow } from './sql'

export interface IncomingEvent {
  envelope: Envelope
  body: Buffer
  endpoint: string
  at: number
  /** The peer that delivered it (for the replay sentinel's record of arrivals). */
  remote?: string
}

export type { EventRow, EventParams } from './sql'
export { insertRejectionSql, trimRejectionsSql, upsertEventSql } from './sql'

export function toSummary(row: EventRow): EventSummary {
  return {
    seq: row.seq,
    id: row.id,
    type: row.type,
    group: row.grp as EventGroup,
    createdAt: row.created_at,
    createdAtMs: row.created_ms,
    receivedAt: row.received_at,
    lastDeliveryAt: row.last_delivery_at,
    deliveries: row.deliveries,
    endpoint: row.endpoint,
    dataId: row.data_id,
    fundingLine: row.data ? fundingLine(row.type, safeParse(row.data)) : null,
    conflict: row.conflicts > 0,
    source: row.source ?? null,
  }
}

/** The summary of a delivery this commit inserted, as `toSummary` reads its stored row (the
 * delivery as sent, with the seq the insert gave it, what a synced event brings — its source, the
 * relay's conflicts — and the data only for funding events), made without a row object and, for a
 * funding event, from the data `parseEnvelope` parsed rather than from `data` parsed again. */
export function insertedSummary(e: ParsedEventParams, seq: number): EventSummary {
  return {
    seq,
    id: e.id,
    type: e.type,
    group: e.grp as EventGroup,
    createdAt: e.created_at,
    createdAtMs: e.created_ms,
    receivedAt: e.at,
    lastDeliveryAt: e.at,
    deliveries: 1,
    endpoint: e.endpoint,
    dataId: storedDataId(e.data_id),
    fundingLine: summaryHasData(e.type) && e.data ? fundingLineOf(e) : null,
    conflict: (e.conflicts ?? 0) > 0,
    source: e.source || null,
  }
}

/** The funding line from the parsed data when it reads the same as the stored text parsed again:
 * JSON text holds no -0 (stored as 0) and no infinity (a huge literal parses to it, is stored as
 * null), so an amount that is either is read from the stored text, as `toSummary` does. */
function fundingLineOf(e: ParsedEventParams): string | null {
  const d = e.parsedData
  if (d !== undefined && sameOnceStored(d.amount) && sameOnceStored(d.target_amount))
    return fundingLine(e.type, d)
  return fundingLine(e.type, safeParse(e.data))
}
const sameOnceStored = (value: unknown) =>
  typeof value !== 'number' || (Number.isFinite(value) && !Object.is(value, -0))

/** A row read with `data, body, conflict_body` after the base columns: one event in full. */
export type DetailRow = EventRow & { body: Buffer; conflict_body: Buffer | null }

export function toDetail(row: DetailRow): EventDetail {
  return {
    ...toSummary(row),
    body: row.body.toString('utf8'),
    data: safeParse(row.data ?? 'null'),
    conflicts: row.conflicts,
    conflictBody: row.conflict_body?.toString('utf8') ?? null,
  }
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** The read side of the SQLite event store (the write side is a Committer). Synchronous, as
 * better-sqlite3 is; a PostgreSQL store offers the same calls as promises (`EventQueries`). */
/** An event as a cursor reader first sees it. */
export interface EventHead {
  seq: number
  id: string
  type: string
}

/** An event head with its `data` (JSON text). */
export interface EventData extends EventHead {
  data: string
}

export interface EventStore {
  list(
    filter: EventFilter,
    after: EventCursor | undefined,
    limit: number,
  ): { rows: EventSummary[]; next: EventCursor | null }
  count(filter: EventFilter, cap: number): { count: number; capped: boolean }
  /** Stored events after `seq`, in commit order, at most `limit`: a reader's durable cursor. Only
   * seq, id and type (a page of 10,000 reads in a few ms on the thread that answers deliveries). */
  after(seq: number, limit: number): EventHead[]
  /** The same with each event's `data` as stored (JSON text): what a follower that reads payloads
   * (the payload drift watch) pages through. */
  dataAfter(seq: number, limit: number): EventData[]
  get(id: string): EventDetail | null
  /** Rows for export, newest first, with data and conflicts; calls `each` so the caller streams. */
  forEachForExport(filter: EventFilter, limit: number, each: (row: SerializedEvent) => void): number
  recentRejections(limit: number): Rejection[]
  /** New events from the local listener (not synced) per second since `from`, for the activity counts. */
  receivedPerSecond(from: number): { second: number; count: number }[]
  startRun(at: number): number
  stopRun(run: number, at: number): void
  outages(limit: number, minGapMs: number): { from: number; to: number }[]
}

/** A listener's delivery as ingest commits it: the stored params, and the data as `parseEnvelope`
 * parsed it, from which the summary's funding line is made instead of parsing `data` again (issue
 * 35). Never sent to the commit worker: the wire packs the params' own fields only. */
export type ParsedEventParams = EventParams & { readonly parsedData?: Record<string, unknown> }

/** Named parameters of upsertEventSql for one delivery (plain data: it may cross to a worker), with
 * the data as parsed. */
export function eventParams(e: IncomingEvent): ParsedEventParams {
  return {
    parsedData: e.envelope.data,
    id: e.envelope.id,
    type: e.envelope.type,
    grp: groupOf(e.envelope.type),
    created_at: e.envelope.created_at,
    created_ms: parseTime(e.envelope.created_at),
    at: e.at,
    endpoint: e.endpoint,
    data_id: typeof e.envelope.data.id === 'string' ? e.envelope.data.id : null,
    body: e.body,
    data: JSON.stringify(e.envelope.data),
    remote: e.remote ?? null,
  }
}

export function createEventStore(db: Database): EventStore {
  const statements = new Map<string, Statement>()
  const prepared = (sql: string) => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = db.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }

  return {
    list(filter, after, limit) {
      const where = filterClause(filter)
      const keyset = after ? ' AND received_at <= ? AND (received_at < ? OR seq < ?)' : ''
      const params = after ? [...where.params, after.receivedAt, after.receivedAt, after.seq] : where.params
      const rows = prepared(
        `SELECT ${summaryColumns} FROM events WHERE ${where.sql}${keyset} ORDER BY received_at DESC, seq DESC LIMIT ?`,
      ).all(...params, limit) as EventRow[]
      const last = rows.at(-1)
      return {
        rows: rows.map(toSummary),
        next: rows.length === limit && last ? { receivedAt: last.received_at, seq: last.seq } : null,
      }
    },
    after: (seq, limit) =>
      prepared('SELECT seq, id, type FROM events WHERE seq > ? ORDER BY seq LIMIT ?').all(
        seq,
        limit,
      ) as EventHead[],
    dataAfter: (seq, limit) =>
      prepared('SELECT seq, id, type, data FROM events WHERE seq > ? ORDER BY seq LIMIT ?').all(
        seq,
        limit,
      ) as EventData[],
    count(filter, cap) {
      const where = filterClause(filter)
      const { n } = prepared(
        `SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE ${where.sql} LIMIT ?)`,
      ).get(...where.params, cap + 1) as { n: number }
      return { count: Math.min(n, cap), capped: n > cap }
    },
    get(id) {
      const row = prepared(`SELECT ${baseColumns}, data, body, conflict_body FROM events WHERE id = ?`).get(
        id,
      ) as DetailRow | undefined
      return row ? toDetail(row) : null
    },
    forEachForExport(filter, limit, each) {
      const where = filterClause(filter)
      const statement = prepared(
        `SELECT ${baseColumns}, data, conflict_body FROM events WHERE ${where.sql} ORDER BY received_at DESC, seq DESC LIMIT ?`,
      )
      let n = 0
      type ExportRow = EventRow & { conflict_body: Buffer | null }
      for (const row of statement.iterate(...where.params, limit) as Iterable<ExportRow>) {
        each({
          ...toSummary(row),
          data: safeParse(row.data ?? 'null'),
          conflicts: row.conflicts,
          conflictBody: row.conflict_body?.toString('utf8') ?? null,
        })
        n++
      }
      return n
    },
    recentRejections: (limit) =>
      prepared(
        'SELECT at, path, status, reason, size, remote FROM webhook_rejections ORDER BY seq DESC LIMIT ?',
      ).all(limit) as Rejection[],
    receivedPerSecond: (from) =>
      prepared(
        'SELECT received_at / 1000 AS second, count(*) AS count FROM events WHERE received_at >= ? AND source IS NULL GROUP BY second',
      ).all(from) as { second: number; count: number }[],
    startRun: (at) =>
      Number(
        prepared('INSERT INTO listener_runs (started_at, alive_at) VALUES (?, ?)').run(at, at)
          .lastInsertRowid,
      ),
    stopRun: (run, at) =>
      void prepared('UPDATE listener_runs SET alive_at = ?, stopped_at = ? WHERE id = ?').run(at, at, run),
    outages(limit, minGapMs) {
      const runs = prepared(
        'SELECT started_at, alive_at, stopped_at FROM listener_runs ORDER BY id DESC LIMIT ?',
      ).all(limit + 1) as {
        started_at: number
        alive_at: number
        stopped_at: number | null
      }[]
      const gaps: { from: number; to: number }[] = []
      for (let i = 0; i + 1 < runs.length; i++) {
        const later = runs[i]!
        const earlier = runs[i + 1]!
        const from = earlier.stopped_at ?? earlier.alive_at
        if (later.started_at - from >= minGapMs) gaps.push({ from, to: later.started_at })
      }
      return gaps
    },
  }
}

export function parseTime(text: string): number | null {
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : null
}

export { filterClause }
