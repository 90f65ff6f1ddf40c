/** Statements another capability adds to the events commit transaction (the forward outbox's
 * enqueue, a source's cursor), run after each event's upsert in that event's own savepoint, so
 * what they write commits or rolls back with the event.
 *
 * A hook is plain data (a name, its SQL, the parameters it reads) because it crosses to the commit
 * worker; the worker prepares each against its own connection and refuses one whose SQL and
 * declared parameters disagree (`prepareCommitHook`). Owned by the capability whose tables it
 * writes; assembled in one list where capabilities meet (`commitHooks` in src/main/contributions.ts).
 *
 * No runtime imports: the commit worker loads this file as it is (Node strips the types). */
import type { Database, Statement } from 'better-sqlite3'

/** What the commit binds for every hook, per event: the delivery, what its upsert returned, and
 * where a synced event came from. */
export interface CommitHookParams {
  // The delivery, as the upsert stored it.
  id: string
  type: string
  grp: string
  created_at: string
  created_ms: number | null
  /** When it arrived here (ms): the listener's receipt, or the relay's for a synced event. */
  at: number
  endpoint: string
  /** The peer that delivered it (the listener's socket address, with X-Forwarded-For before it
   * behind a proxy); null for an event synced from a relay. */
  remote: string | null
  data_id: string | null
  body: Uint8Array
  data: string
  conflicts: number
  conflict_body: Uint8Array | null
  // What the upsert returned.
  seq: number
  /** 1 on the event's first delivery (the row was inserted), else 0. */
  inserted: 0 | 1
  /** 1 when this delivery's body differed from the stored one. */
  conflicted: 0 | 1
  // A synced event's origin; null (and 0) for the listener's own deliveries.
  /** The relay source's name. */
  source: string | null
  /** The relay's cursor after this event. */
  cursor: string | null
  /** 1 on the last event of a synced page (where the source's cursor is saved). */
  last: 0 | 1
}

export type CommitHookParam = keyof CommitHookParams

/** Every parameter the commit provides; `satisfies` below fails the build when this list and
 * `CommitHookParams` drift apart. */
export const commitHookParams = [
  'id',
  'type',
  'grp',
  'created_at',
  'created_ms',
  'at',
  'endpoint',
  'remote',
  'data_id',
  'body',
  'data',
  'conflicts',
  'conflict_body',
  'seq',
  'inserted',
  'conflicted',
  'source',
  'cursor',
  'last',
] as const satisfies readonly CommitHookParam[]
const everyParamListed: Exclude<CommitHookParam, (typeof commitHookParams)[number]> extends never
  ? true
  : never = true
void everyParamListed

export interface CommitHook {
  /** Who adds it and why, in the log and in the error when it is refused (`forward.enqueue`). */
  name: string
  /** One statement, with named parameters (`@seq`) only. */
  sql: string
  /** Exactly the parameters `sql` reads: each must be one the commit provides, and used. */
  params: readonly CommitHookParam[]
  /** A flag parameter (one of `params`, which the SQL's own WHERE also tests) without which the
   * statement changes nothing: the commit skips running it for an event where the flag is 0, a
   * statement's cost saved on most events (a duplicate is never enqueued, a listener's delivery
   * saves no cursor). */
  onlyWhen?: 'inserted' | 'conflicted' | 'last'
  /** A query without parameters, run once per transaction: when it returns no row, the hook
   * could change nothing in this transaction and is not run for any of its events (the outbox
   * while no forward target exists: a statement per delivery saved for most consoles). */
  whileAny?: string
}

const provided: ReadonlySet<string> = new Set(commitHookParams)

/** Prepares a hook against `db`, or throws naming the hook and what is wrong: SQL that does not
 * prepare against this schema, a parameter the commit does not provide, one the SQL reads but the
 * hook does not declare, or one declared but unused. Checked by binding (SQLite's own parser says
 * which names the statement has), never by scanning the text. */
export function prepareCommitHook(db: Database, hook: CommitHook): Statement {
  const refuse = (why: string) => new Error(`commit hook ${hook.name}: ${why}`)
  let statement: Statement
  try {
    statement = db.prepare(hook.sql)
  } catch (error) {
    throw refuse(`its SQL does not prepare (${(error as Error).message})`)
  }
  if (hook.whileAny !== undefined) {
    let why: string | null = null
    try {
      const guard = db.prepare(hook.whileAny)
      if (!guard.reader) why = 'it changes data'
      // Binding nothing fails for a statement that has parameters.
      else guard.bind()
    } catch (error) {
      why = (error as Error).message
    }
    if (why !== null) throw refuse(`its whileAny is not a query without parameters (${why})`)
  }
  if (hook.onlyWhen && !hook.params.includes(hook.onlyWhen))
    throw refuse(`runs only when @${hook.onlyWhen} is 1, which it does not declare`)
  const unknown = hook.params.filter((p) => !provided.has(p))
  if (unknown.length > 0)
    throw refuse(`declares ${unknown.map((p) => `@${p}`).join(', ')}, which the commit does not provide`)
  const binds = (params: readonly string[]) => {
    try {
      db.prepare(hook.sql).bind(Object.fromEntries(params.map((p) => [p, null])))
      return null
    } catch (error) {
      return (error as Error).message
    }
  }
  const withAll = binds(hook.params)
  if (withAll !== null) {
    const missing = /Missing named parameter "(.+)"/.exec(withAll)?.[1]
    throw refuse(
      missing ? `reads @${missing} but does not declare it` : `its parameters must all be named (${withAll})`,
    )
  }
  for (const p of hook.params)
    if (binds(hook.params.filter((q) => q !== p)) === null)
      throw refuse(`declares @${p} but its SQL does not read it`)
  return statement
}
