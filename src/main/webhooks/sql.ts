/** The events tables' statements and row shapes, shared by the store (queries, main thread) and
 * the commit transaction (worker thread). No runtime imports: the worker loads this file as it is. */
import type { CommitHookParams } from '../db/commit-hooks'

export interface EventRow {
  seq: number
  id: string
  type: string
  grp: string
  created_at: string
  created_ms: number | null
  received_at: number
  last_delivery_at: number
  deliveries: number
  endpoint: string | null
  data_id: string | null
  /** Redeliveries of this id whose body differed from the first one (kept). */
  conflicts: number
  /** The relay a console synced this event from; null for its own listener. */
  source: string | null
  data: string | null
}

/** A stored row as the upsert returns it: `conflicted` is 1 when this very delivery's body
 * differed from the stored one. */
export interface CommittedRow extends EventRow {
  conflicted: 0 | 1
}

/** Named parameters of upsertEventSql for one delivery: plain data, so it crosses to a worker
 * (or a PostgreSQL store) as it is. The fields are the commit hooks' own (one definition). */
export type EventParams = Pick<
  CommitHookParams,
  'id' | 'type' | 'grp' | 'created_at' | 'created_ms' | 'at' | 'endpoint' | 'data_id' | 'body' | 'data'
> &
  /** An event synced from a relay brings the relay's conflict (0 and null from a listener). */
  Partial<Pick<CommitHookParams, 'conflicts' | 'conflict_body' | 'remote'>> & {
    /** An event synced from a relay: the source, the relay's cursor after it, and 1 on the last of
     * its page (read by the sources' commit hooks; absent from a listener's delivery). */
    source?: string
    cursor?: string
    last?: 0 | 1
  }

export const baseColumns =
  'seq, id, type, grp, created_at, created_ms, received_at, last_delivery_at, deliveries, endpoint, data_id, conflicts, source'
/** The data column only for funding events (their summary carries the funding line). */
export const summaryColumns = `${baseColumns}, CASE WHEN type LIKE 'funding.%' THEN data END AS data`

/** First delivery inserts; a redelivery counts, and a redelivery whose body differs is a conflict:
 * the first body stays, the latest differing body is kept beside it. An event synced from a relay
 * also brings the relay's own count and body (`@conflicts`, `@conflict_body`): a conflict the relay
 * saw after this console stored the event arrives as such a redelivery. */
/** The columns a delivery's row is inserted with (the upsert's and the plain insert's, in order). */
const insertedColumns = (sourced: boolean) =>
  `id, type, grp, created_at, created_ms, received_at, last_delivery_at, deliveries, endpoint, data_id, body, data, conflicts, conflict_body${sourced ? ', source' : ''}`
const upsertSql = (sourced: boolean) => `
    INSERT INTO events (${insertedColumns(sourced)})
    VALUES (@id, @type, @grp, @created_at, @created_ms, @at, @at, 1, @endpoint, @data_id, @body, @data, @conflicts, @conflict_body${sourced ? ', @source' : ''})
    ON CONFLICT (id) DO UPDATE SET
      deliveries = deliveries + 1,
      last_delivery_at = max(last_delivery_at, excluded.last_delivery_at),
      conflicts = max(conflicts + (body IS NOT excluded.body), excluded.conflicts),
      conflict_body = CASE WHEN body IS NOT excluded.body THEN excluded.body
                           WHEN excluded.conflicts > conflicts THEN excluded.conflict_body
                           ELSE conflict_body END
    RETURNING seq, deliveries, body IS NOT @body AS conflicted`
export const upsertEventSql = upsertSql(false)
/** A first delivery's insert, tried before the upsert: without RETURNING and its conflict update
 * it cost the commit worker about a third less per row (an in-process paired A/B of groups of 120:
 * RETURNING makes SQLite buffer the row it returns). `changes` 1 and the rowid
 * (`seq`) answer it; 0 means the id is stored already, and the upsert above runs for it. Positional
 * (`insertArgs`): binding by name, with the defaults spread in, was another tenth. */
const insertNewSql = (sourced: boolean) => `
    INSERT INTO events (${insertedColumns(sourced)})
    VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?${sourced ? ', ?' : ''})
    ON CONFLICT (id) DO NOTHING`
export const insertNewEventSql = insertNewSql(false)
export const insertNewSourcedEventSql = insertNewSql(true)
/** The values of `insertNewEventSql` (and with the source, `insertNewSourcedEventSql`) in order. */
export function insertArgs(e: EventParams): unknown[] {
  const args: unknown[] = [
    e.id,
    e.type,
    e.grp,
    e.created_at,
    e.created_ms,
    e.at,
    e.at,
    e.endpoint,
    e.data_id,
    e.body,
    e.data,
    e.conflicts ?? 0,
    e.conflict_body ?? null,
  ]
  if (e.source) args.push(e.source)
  return args
}
/** The same upsert for an event synced from a relay: a first delivery also stores its source (in
 * the insert itself, not a second statement per event: a tenth of a catch-up's commit time). */
export const upsertSourcedEventSql = upsertSql(true)
/** What the upsert returns: no more than the commit hooks and the answer need. A first delivery's
 * row is the delivery itself (`insertedSummary` in store.ts); only a redelivery's is read back (`storedSummarySql`):
 * returning every summary column cost the worker a row object per delivery and the listener a copy
 * of it through the thread boundary. */
export interface UpsertedRow {
  seq: number
  deliveries: number
  conflicted: 0 | 1
}

/** The stored row a redelivery found, read in the same transaction right after its upsert. */
export const storedSummarySql = `SELECT ${summaryColumns} FROM events WHERE seq = ?`

/** A data id as SQLite stores it: a lone UTF-16 surrogate becomes U+FFFD (the envelope's id, type
 * and created_at never hold one: parseEnvelope refuses them; a data id may). */
export const storedDataId = (dataId: string | null): string | null =>
  dataId === null ? null : dataId.replace(loneSurrogates, '\ufffd')
/** Whether `summaryColumns` reads the data of an event of this type (funding events: their
 * summary carries the funding line). SQLite's LIKE folds ASCII case, so does the `i` flag. */
export const summaryHasData = (type: string): boolean => fundingType.test(type)
const fundingType = /^funding\./i
const loneSurrogates = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

export const insertRejectionSql =
  'INSERT INTO webhook_rejections (at, path, status, reason, size, remote) VALUES (@at, @path, @status, @reason, @size, @remote)'
/** Keeps the rejection log bounded when someone floods the listener. */
export const trimRejectionsSql =
  'DELETE FROM webhook_rejections WHERE seq <= (SELECT max(seq) FROM webhook_rejections) - 10000'
export const markAliveSql = 'UPDATE listener_runs SET alive_at = @at WHERE id = @run'
/** A write that proves the database takes commits again (used while no listener run exists). */
export const probeSql = `INSERT INTO meta (key, value) VALUES ('storage_probe', CAST(@at AS TEXT))
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`
