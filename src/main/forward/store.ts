import Database from 'better-sqlite3'
import type { Database as Db, Statement } from 'better-sqlite3'
import type { EventForward, ForwardAttempt, ForwardState } from '../../shared/contract/forward'

/** The outbox's own connection to the database: its writes (claims, attempts) are small, batched,
 * and committed with synchronous=NORMAL (no fsync per attempt; WAL keeps them consistent, and a
 * lost "delivered" mark only means one more delivery). The events' commits keep their FULL sync
 * in the commit worker. */
export interface ClaimedForward {
  id: number
  seq: number
  eventId: string
  type: string
  endpoint: string | null
  body: Buffer
  editedBody: Buffer | null
  attempt: number
  createdAt: number
  replay: boolean
}

export interface AttemptRecord {
  outboxId: number
  seq: number
  target: string
  attempt: number
  at: number
  status: number | null
  latencyMs: number | null
  error: string | null
  response: string | null
  edited: boolean
  /** The row's state after this attempt and when it is due next. */
  state: ForwardState
  dueAt: number
}

export interface ForwardStore {
  /** The routing the commit transaction reads: enabled targets and their type patterns. */
  syncRoutes(targets: { name: string; events: string[]; enabled: boolean }[]): void
  /** After a restart of the only process: leases of a killed process are free again at once. */
  releaseLeases(owner: string): number
  /** Rows due by `dueBy` (default `now`; a probe of a failing target takes its earliest-due row
   * whatever its due time), not leased, oldest due first. */
  claim(
    target: string,
    limit: number,
    now: number,
    leaseUntil: number,
    owner: string,
    dueBy?: number,
  ): ClaimedForward[]
  /** `claim` in two parts: the leases (a write, inside the caller's transaction) and the events'
   * bodies (a read, after it committed: the write lock is held for the leases only). */
  lease(
    target: string,
    limit: number,
    now: number,
    leaseUntil: number,
    owner: string,
    dueBy: number,
  ): LeasedRow[]
  withEvents(rows: LeasedRow[]): ClaimedForward[]
  /** Claimed rows that will not be tried now (stopping): free for the next run at once. */
  release(ids: number[]): void
  /** The row of one event for one target, whatever its due time (the authorization relay). */
  claimEvent(seq: number, target: string, leaseUntil: number, owner: string): ClaimedForward | null
  /** Finished attempts in one transaction; every failing row of a `recovered` target is due now
   * (its queue drains at once). */
  record(records: AttemptRecord[], recovered?: string[], now?: number): void
  /** Runs `fn` in one write transaction (its record and claims nest in it). */
  atomically<T>(fn: () => T): T
  /** The earliest due time of an open row of `target` not leased now (null: none): the dispatcher
   * sleeps until then. */
  nextDue(target: string, now: number): number | null
  openCounts(): Map<string, { pending: number; failing: number }>
  seqOf(id: string): number | null
  eventForwarding(seq: number): { forwards: EventForward[]; attempts: ForwardAttempt[] }
  /** The same for the event with this id (null: no stored event has it), its seq looked up in
   * the same snapshot (retention may remove the event and its forwards between two reads). */
  eventForwardingOf(id: string): { forwards: EventForward[]; attempts: ForwardAttempt[] } | null
  statesOf(ids: string[]): Record<string, ForwardState>
  /** The new outbox rows' ids (a replay tells its own attempts from others of the target). */
  enqueueIds(ids: string[], target: string, now: number): number[]
  /** `where` is the events view's filter as SQL (webhooks' filterClause). */
  enqueueFilter(
    where: { sql: string; params: unknown[] },
    target: string,
    now: number,
    limit: number,
  ): number[]
  enqueueEdited(seq: number, body: Buffer, target: string, now: number): number
  /** `PRAGMA data_version`: changes when another connection committed (db/commit-watch.ts). */
  dataVersion(): number
  close(): void
}

export function openForwardStore(file: string): ForwardStore {
  const db = new Database(file, { fileMustExist: true })
  db.pragma('busy_timeout = 2000')
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  return forwardStoreOn(db, () => db.close())
}

const claimColumns = 'id, event_seq, attempts, created_at, replay, edited_body'
export type LeasedRow = ClaimRow
type ClaimRow = {
  id: number
  event_seq: number
  attempts: number
  created_at: number
  replay: number
  edited_body: Buffer | null
}
type EventRow = { seq: number; id: string; type: string; endpoint: string | null; body: Buffer }

export function forwardStoreOn(db: Db, close: () => void = () => {}): ForwardStore {
  const statements = new Map<string, Statement>()
  const prepared = (sql: string) => {
    let s = statements.get(sql)
    if (!s) statements.set(sql, (s = db.prepare(sql)))
    return s
  }
  const dataVersion = db.prepare('PRAGMA data_version').pluck()
  const dueIds = db.prepare(
    `SELECT id FROM forward_outbox WHERE target = ? AND state IN ('pending', 'failing') AND due_at <= ?
     AND lease_until <= ? ORDER BY due_at, id LIMIT ?`,
  )
  const nextDue = db.prepare(
    `SELECT due_at FROM forward_outbox WHERE target = ? AND state IN ('pending', 'failing') AND lease_until <= ?
     ORDER BY due_at, id LIMIT 1`,
  )
  const insertAttempt = db.prepare(
    `INSERT INTO forward_attempts (outbox_id, event_seq, target, attempt, at, status, latency_ms, error, response, edited)
     VALUES (@outboxId, @seq, @target, @attempt, @at, @status, @latencyMs, @error, @response, @edited)`,
  )
  const settle = db.prepare(
    `UPDATE forward_outbox SET state = @state, attempts = @attempt, due_at = @dueAt, lease_until = 0, lease_owner = NULL,
     last_at = @at, last_status = @status, last_error = @error WHERE id = @outboxId`,
  )

  const withEvents = (rows: ClaimRow[]) => joinEvents(prepared, rows)
  const seqOf = (id: string) =>
    (prepared('SELECT seq FROM events WHERE id = ?').get(id) as { seq: number } | undefined)?.seq ?? null

  const claim = db.transaction(
    (target: string, limit: number, now: number, leaseUntil: number, owner: string, dueBy: number) => {
      const ids = (dueIds.all(target, dueBy, now, limit) as { id: number }[]).map((r) => r.id)
      if (ids.length === 0) return []
      return prepared(
        `UPDATE forward_outbox SET lease_until = ?, lease_owner = ?
       WHERE id IN (${ids.map(() => '?').join(',')}) AND lease_until <= ? RETURNING ${claimColumns}`,
      ).all(leaseUntil, owner, ...ids, now) as ClaimRow[]
    },
  )

  const enqueueSelect = (where: string) =>
    `INSERT INTO forward_outbox (event_seq, target, state, created_at, due_at, replay)
     SELECT seq, ?, 'pending', ?, ?, 1 FROM events WHERE ${where}`

  return {
    syncRoutes: db.transaction((targets: { name: string; events: string[]; enabled: boolean }[]) => {
      prepared('DELETE FROM forward_routes').run()
      const insert = prepared('INSERT OR IGNORE INTO forward_routes (target, pattern) VALUES (?, ?)')
      for (const t of targets) if (t.enabled) for (const p of t.events) insert.run(t.name, p)
    }),
    releaseLeases: (owner) =>
      prepared(
        `UPDATE forward_outbox SET lease_until = 0, lease_owner = NULL
         WHERE state IN ('pending', 'failing') AND lease_until > 0 AND lease_owner IS NOT ?`,
      ).run(owner).changes,
    lease: (target, limit, now, leaseUntil, owner, dueBy) =>
      claim.immediate(target, limit, now, leaseUntil, owner, dueBy),
    withEvents,
    // Callers ask nextDue first: a claim takes the write lock the commit worker needs.
    claim: (target, limit, now, leaseUntil, owner, dueBy = now) =>
      withEvents(claim.immediate(target, limit, now, leaseUntil, owner, dueBy)),
    release(ids) {
      if (ids.length === 0) return
      prepared(
        `UPDATE forward_outbox SET lease_until = 0, lease_owner = NULL WHERE id IN (${ids.map(() => '?').join(',')})`,
      ).run(...ids)
    },
    claimEvent(seq, target, leaseUntil, owner) {
      const rows = prepared(
        `UPDATE forward_outbox SET lease_until = ?, lease_owner = ?
         WHERE id = (SELECT id FROM forward_outbox WHERE event_seq = ? AND target = ? AND state = 'pending'
                     AND attempts = 0 ORDER BY id LIMIT 1)
         RETURNING ${claimColumns}`,
      ).all(leaseUntil, owner, seq, target) as ClaimRow[]
      return withEvents(rows)[0] ?? null
    },
    record: db.transaction((records: AttemptRecord[], recovered: string[] = [], now = Date.now()) => {
      for (const r of records) {
        insertAttempt.run({ ...r, edited: r.edited ? 1 : 0 })
        settle.run(r)
      }
      for (const target of recovered)
        prepared(
          `UPDATE forward_outbox SET due_at = ? WHERE target = ? AND state = 'failing' AND due_at > ?`,
        ).run(now, target, now)
    }),
    atomically: (fn) => db.transaction(fn).immediate(),
    nextDue: (target, now) => (nextDue.get(target, now) as { due_at: number } | undefined)?.due_at ?? null,
    openCounts: () => readOpenCounts(prepared),
    seqOf: (id) => seqOf(id),
    // One read transaction: its two reads see one snapshot, so an attempt committed between them
    // never shows beside the row's state from before it.
    eventForwarding: db.transaction((seq: number) => readEventForwarding(prepared, seq)),
    eventForwardingOf: db.transaction((id: string) => {
      const seq = seqOf(id)
      return seq === null ? null : readEventForwarding(prepared, seq)
    }),
    statesOf(ids) {
      const out: Record<string, ForwardState> = {}
      if (ids.length === 0) return out
      const rows = prepared(
        `SELECT e.id AS id, o.state AS state FROM events e JOIN forward_outbox o ON o.event_seq = e.seq
         WHERE e.id IN (${ids.map(() => '?').join(',')})`,
      ).all(...ids) as { id: string; state: ForwardState }[]
      for (const r of rows) out[r.id] = worse(out[r.id], r.state)
      return out
    },
    enqueueIds(ids, target, now) {
      if (ids.length === 0) return []
      return (
        prepared(`${enqueueSelect(`id IN (${ids.map(() => '?').join(',')})`)} RETURNING id`).all(
          target,
          now,
          now,
          ...ids,
        ) as { id: number }[]
      ).map((r) => r.id)
    },
    enqueueFilter(where, target, now, limit) {
      return (
        prepared(`${enqueueSelect(where.sql)} ORDER BY seq LIMIT ? RETURNING id`).all(
          target,
          now,
          now,
          ...where.params,
          limit,
        ) as { id: number }[]
      ).map((r) => r.id)
    },
    enqueueEdited: (seq, body, target, now) =>
      prepared(
        `INSERT INTO forward_outbox (event_seq, target, state, created_at, due_at, replay, edited_body)
         VALUES (?, ?, 'pending', ?, ?, 1, ?)`,
      ).run(seq, target, now, now, body).changes,
    // One prepared statement, not `db.pragma()`, which prepares anew at each of two looks a second.
    dataVersion: () => dataVersion.get() as number,
    close,
  }
}

/** Claimed rows with their events' ids, types and bodies (a row whose event is gone is left out). */
function joinEvents(prepared: (sql: string) => Statement, rows: ClaimRow[]): ClaimedForward[] {
  if (rows.length === 0) return []
  const seqs = [...new Set(rows.map((r) => r.event_seq))]
  const events = new Map(
    (
      prepared(
        `SELECT seq, id, type, endpoint, body FROM events WHERE seq IN (${seqs.map(() => '?').join(',')})`,
      ).all(...seqs) as EventRow[]
    ).map((e) => [e.seq, e]),
  )
  return rows
    .sort((a, b) => a.id - b.id)
    .flatMap((r) => {
      const e = events.get(r.event_seq)
      if (!e) return []
      return [
        {
          id: r.id,
          seq: r.event_seq,
          eventId: e.id,
          type: e.type,
          endpoint: e.endpoint,
          body: e.body,
          editedBody: r.edited_body,
          attempt: r.attempts + 1,
          createdAt: r.created_at,
          replay: r.replay === 1,
        },
      ]
    })
}

/** An event's forwards (one per target) and their latest 100 attempts, for its detail. */
function readEventForwarding(
  prepared: (sql: string) => Statement,
  seq: number,
): { forwards: EventForward[]; attempts: ForwardAttempt[] } {
  const forwards = (
    prepared(
      `SELECT target, state, attempts, due_at, last_at, last_status, last_error, replay, edited_body IS NOT NULL AS edited
       FROM forward_outbox WHERE event_seq = ? ORDER BY id`,
    ).all(seq) as {
      target: string
      state: ForwardState
      attempts: number
      due_at: number
      last_at: number | null
      last_status: number | null
      last_error: string | null
      replay: number
      edited: number
    }[]
  ).map((r): EventForward => ({
    target: r.target,
    state: r.state,
    attempts: r.attempts,
    dueAt: r.state === 'pending' || r.state === 'failing' ? r.due_at : null,
    lastAt: r.last_at,
    lastStatus: r.last_status,
    lastError: r.last_error,
    replay: r.replay === 1,
    edited: r.edited === 1,
  }))
  const attempts = (
    prepared(
      `SELECT target, attempt, at, status, latency_ms, error, response, edited FROM forward_attempts
       WHERE event_seq = ? ORDER BY id DESC LIMIT 100`,
    ).all(seq) as {
      target: string
      attempt: number
      at: number
      status: number | null
      latency_ms: number | null
      error: string | null
      response: string | null
      edited: number
    }[]
  ).map((r): ForwardAttempt => ({
    target: r.target,
    attempt: r.attempt,
    at: r.at,
    status: r.status,
    latencyMs: r.latency_ms,
    error: r.error,
    response: r.response,
    edited: r.edited === 1,
  }))
  return { forwards, attempts }
}

/** Forwards under way per target: pending counts every one, failing those that failed before. */
function readOpenCounts(
  prepared: (sql: string) => Statement,
): Map<string, { pending: number; failing: number }> {
  const rows = prepared(
    `SELECT target, state, count(*) AS n FROM forward_outbox WHERE state IN ('pending', 'failing')
     GROUP BY target, state`,
  ).all() as { target: string; state: string; n: number }[]
  const counts = new Map<string, { pending: number; failing: number }>()
  for (const r of rows) {
    const c = counts.get(r.target) ?? { pending: 0, failing: 0 }
    if (r.state === 'failing') c.failing += r.n
    c.pending += r.n
    counts.set(r.target, c)
  }
  return counts
}

const severity: Record<ForwardState, number> = { delivered: 0, pending: 1, failing: 2, gave_up: 3 }
const worse = (a: ForwardState | undefined, b: ForwardState): ForwardState =>
  a === undefined || severity[b] > severity[a] ? b : a
