/** The one commit transaction, run by the commit worker and by the in-thread committer alike.
 * Runtime imports carry their `.ts` extension: the worker runs this file directly under vitest
 * (Node strips the types), and the bundler resolves it for the built app. */
import type { Database, Statement } from 'better-sqlite3'
import { prepareCommitHook } from '../db/commit-hooks.ts'
import type { CommitHook, CommitHookParams } from '../db/commit-hooks.ts'
import type {
  CommittedItem,
  CommittedReply,
  CommitRequest,
  PruneReply,
  PruneStatement,
  StorageFailure,
} from './commit-protocol.ts'
import { compactReply } from './commit-protocol.ts'
import {
  insertArgs,
  insertNewEventSql,
  insertNewSourcedEventSql,
  insertRejectionSql,
  markAliveSql,
  probeSql,
  storedSummarySql,
  trimRejectionsSql,
  upsertEventSql,
  upsertSourcedEventSql,
} from './sql.ts'
import type { CommittedRow, EventParams, UpsertedRow } from './sql.ts'
import { failureOf } from '../workers/failure.ts'

/** Errors that belong to one delivery (too big, too deep to stringify, a constraint): that
 * delivery is refused on its own. Anything else (disk full, locked, I/O, a missing table) means
 * the database cannot commit now: the whole transaction fails and every delivery gets 503. */
const eventFaultCodes = /^SQLITE_(TOOBIG|CONSTRAINT|MISMATCH|RANGE)/

/** SQLite's extended code and the message: a StorageFailure is a worker failure value. */
export { failureOf }

function isEventFault(failure: StorageFailure, error: unknown): boolean {
  if (failure.code !== null) return eventFaultCodes.test(failure.code)
  // No SQLite code: the data itself (a RangeError from a pathological value, a TypeError).
  return error instanceof RangeError || error instanceof TypeError
}

/** Thrown out of the transaction without savepoints when one event cannot be stored: it rolls
 * that transaction back, and the commit runs again with a savepoint per event. */
class EventFaultWithoutSavepoint extends Error {}

export interface CommitTransaction {
  /** Everything in one transaction and one fsync; a delivery that cannot be stored fails alone. */
  commit(requests: CommitRequest[]): CommittedReply[]
  alive(run: number | null, at: number): StorageFailure | null
  /** One retention batch in its own short transaction; the changes of its counted statements. */
  prune(statements: PruneStatement[]): PruneReply
  /** Part of a retention batch, in its own transaction: the statements run again and again on
   * `pruneChunkRows` rows at a time until `rows` are removed, none are left (`exhausted`), or
   * `yieldNow()` says a commit is waiting (src/main/webhooks/commit-worker.ts). */
  pruneStep(statements: PruneStatement[], rows: number, yieldNow: () => boolean): PruneStepReply
}

export type PruneStepReply =
  { ok: true; changes: number; exhausted: boolean } | { ok: false; failure: StorageFailure }

/** Rows per run of a batch's statements inside a step: small enough that a commit waiting behind
 * a step waits for about one of these (a fraction of a millisecond), large enough that the
 * statements' fixed cost (the victims' temp table, the plans) stays small. */
export const pruneChunkRows = 20

/** The rows a batch asks for: its statements' `@batch` (1 for a batch without one, e.g. saving
 * the state: its statements run once). */
export function pruneRows(statements: PruneStatement[]): number {
  return Math.max(1, ...statements.map((s) => s.params.batch ?? 1))
}

/** What the commit binds for each hook after an event's upsert (every hook reads a part of it):
 * these fields and no others (a listener's params carry their parsed data too, `ParsedEventParams`,
 * which no statement binds). */
export function hookParamsOf(e: EventParams, row: UpsertedRow): CommitHookParams {
  return {
    id: e.id,
    type: e.type,
    grp: e.grp,
    created_at: e.created_at,
    created_ms: e.created_ms,
    at: e.at,
    endpoint: e.endpoint,
    data_id: e.data_id,
    body: e.body,
    data: e.data,
    conflicts: e.conflicts ?? 0,
    conflict_body: e.conflict_body ?? null,
    remote: e.remote ?? null,
    seq: row.seq,
    inserted: row.deliveries === 1 ? 1 : 0,
    conflicted: row.conflicted,
    source: e.source ?? null,
    cursor: e.cursor ?? null,
    last: e.last ?? 0,
  }
}

/** `hooks` are prepared (and checked) here, so a wrong one stops the worker at its start with the
 * hook named, rather than failing every commit. */
export function createCommitTransaction(db: Database, hooks: readonly CommitHook[] = []): CommitTransaction {
  const upsert = db.prepare(upsertEventSql)
  const upsertSourced = db.prepare(upsertSourcedEventSql)
  const after = hooks.map((hook) => ({
    statement: prepareCommitHook(db, hook),
    onlyWhen: hook.onlyWhen,
    guard: hook.whileAny === undefined ? null : db.prepare(hook.whileAny),
    /** Whether the guard found a row in the transaction running now. */
    active: true,
  }))
  const insertRejection = db.prepare(insertRejectionSql)
  const trimRejections = db.prepare(trimRejectionsSql)
  const markAlive = db.prepare(markAliveSql)
  const probe = db.prepare(probeSql)
  const storedSummary = db.prepare(storedSummarySql)
  const insertNew = db.prepare(insertNewEventSql)
  const insertNewSourced = db.prepare(insertNewSourcedEventSql)
  /** The row a delivery made: a first delivery by the plain insert; a redelivery (the insert did
   * nothing) by the upsert, which counts it and tells a differing body. */
  const store = (e: EventParams): UpsertedRow => {
    // A synced event's insert stores its source too (a first delivery keeps it).
    const inserted = (e.source ? insertNewSourced : insertNew).run(insertArgs(e))
    if (inserted.changes === 1) return { seq: Number(inserted.lastInsertRowid), deliveries: 1, conflicted: 0 }
    return (e.source ? upsertSourced : upsert).get({ conflicts: 0, conflict_body: null, ...e }) as UpsertedRow
  }
  const upsertOne = (e: EventParams): CommittedItem => {
    const row = store(e)
    // Read before the hooks run, as the upsert's own RETURNING would have seen it.
    const item: CommittedItem =
      row.deliveries === 1
        ? { ok: true, inserted: row.seq }
        : { ok: true, row: { ...(storedSummary.get(row.seq) as CommittedRow), conflicted: row.conflicted } }
    let params: CommitHookParams | null = null
    for (const hook of after) {
      if (!hook.active) continue
      params ??= hookParamsOf(e, row)
      if (hook.onlyWhen === undefined || params[hook.onlyWhen] === 1) hook.statement.run(params)
    }
    return item
  }
  // Nested inside the batch's transaction this is a savepoint: a failing event is rolled back alone.
  const oneInSavepoint = db.transaction(upsertOne)
  /** Each event in a savepoint of its own (the way that can refuse one event alone), or, first,
   * all of them without (a savepoint and its release cost about a tenth of an event's commit): a
   * fault of one event there abandons the whole transaction, which then runs again the slow way. */
  const itemWith =
    (one: (e: EventParams) => CommittedItem, inSavepoint: boolean) =>
    (e: EventParams): CommittedItem => {
      try {
        return one(e)
      } catch (error) {
        const failure = failureOf(error)
        if (!isEventFault(failure, error)) throw error
        if (!inSavepoint) throw new EventFaultWithoutSavepoint()
        return { ok: false, ...failure }
      }
    }
  const transactionWith = (item: (e: EventParams) => CommittedItem) =>
    db.transaction((requests: CommitRequest[]): CommittedReply[] => {
      for (const hook of after) hook.active = hook.guard === null || hook.guard.get() !== undefined
      let rejected = 0
      const replies = requests.map((r): CommittedReply => compactReply(r.id, r.events.map(item)))
      for (const r of requests) {
        for (const rejection of r.rejections) insertRejection.run(rejection)
        rejected += r.rejections.length
      }
      if (rejected > 0) trimRejections.run()
      return replies
    })
  const allAtOnce = transactionWith(itemWith(upsertOne, false))
  const eachInSavepoint = transactionWith(itemWith(oneInSavepoint, true))
  const prepared = new Map<string, Statement>()
  const statement = (sql: string) => {
    let s = prepared.get(sql)
    if (!s) prepared.set(sql, (s = db.prepare(sql)))
    return s
  }
  const chunk = (statements: PruneStatement[], rows: number): number => {
    let changes = 0
    for (const s of statements) {
      const params = 'batch' in s.params ? { ...s.params, batch: rows } : s.params
      const done = statement(s.sql).run(params).changes
      if (s.counts) changes += done
    }
    return changes
  }
  const step = db.transaction((statements: PruneStatement[], rows: number, yieldNow: () => boolean) => {
    let changes = 0
    for (;;) {
      const asked = Math.min(pruneChunkRows, rows - changes)
      const done = chunk(statements, asked)
      changes += done
      if (done < asked) return { changes, exhausted: true }
      // Asked after every chunk, the last one too (the worker times a step's chunks by it).
      if (yieldNow() || changes >= rows) return { changes, exhausted: false }
    }
  })
  const pruneStep = (statements: PruneStatement[], rows: number, yieldNow: () => boolean): PruneStepReply => {
    try {
      return { ok: true, ...step.immediate(statements, rows, yieldNow) }
    } catch (error) {
      return { ok: false, failure: failureOf(error) }
    }
  }
  return {
    prune(statements) {
      const done = pruneStep(statements, pruneRows(statements), () => false)
      return done.ok ? { ok: true, changes: done.changes } : done
    },
    pruneStep,
    commit(requests) {
      try {
        try {
          return allAtOnce.immediate(requests)
        } catch (error) {
          if (!(error instanceof EventFaultWithoutSavepoint)) throw error
          return eachInSavepoint.immediate(requests)
        }
      } catch (error) {
        const failure = failureOf(error)
        return requests.map((r) => ({ id: r.id, ok: false, failure }))
      }
    },
    alive(run, at) {
      try {
        if (run === null || markAlive.run({ run, at }).changes === 0) probe.run({ at })
        return null
      } catch (error) {
        return failureOf(error)
      }
    },
  }
}
