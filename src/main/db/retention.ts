import { performance } from 'node:perf_hooks'
import type { Database } from 'better-sqlite3'
import type { RetentionConfig } from '../../shared/config'
import type { RetentionStatus } from '../../shared/contract/storage'
import type { Logger } from '../log'

/** Retention (docs/storage.md#retention): rows older than `retention.<kind>.days` are removed in
 * small batches, each its own short transaction through the database's one writer, so a delivery
 * never waits behind a long delete.
 *
 * This module names no capability's table: each capability declares the tables of its own that
 * age, the rows of others it needs kept ("an event stays while its forward is queued") and the rows
 * of its own that go with another's (`RetentionRules`, in its contribution); the composer joins
 * them (`retentionRules` in src/main/contributions.ts) and `pruneBatch` turns them into statements. */

export const retentionKinds = ['events', 'attempts', 'alerts', 'rejections'] as const
export type RetentionKind = (typeof retentionKinds)[number]

/** One statement of a batch; all of a batch's statements run in one transaction, and the rows the
 * batch removed are the changes of the statements marked `counts`. */
export interface PruneStatement {
  sql: string
  params: Record<string, number>
  counts?: boolean
}

/** A table whose rows age under `retention.<kind>.days`, declared by the table's owner. */
export interface AgingTable {
  kind: RetentionKind
  table: string
  /** The integer key a batch removes rows by. */
  key: string
  /** The table's alias in `olderThan`, `orderBy` and the keep rules. */
  alias: string
  /** When a row is old enough to go: a condition over the alias reading `@cutoff` (ms). */
  olderThan: string
  /** Which go first, when a batch cannot take them all. */
  orderBy?: string
}

/** Rows of an aging table kept whatever their age, declared by whoever needs them. */
export interface KeepRule {
  table: string
  /** Whose rule and why (`forward.queued`). */
  name: string
  /** `EXISTS (…)` over the aging table's alias: while it holds, the row stays. */
  keepsWhile: string
}

/** Rows that go with removed rows of an aging table, declared by their owner: a DELETE reading the
 * removed keys from `${retentionVictims} (id)`, run in the same transaction before them. */
export interface RemovedWith {
  table: string
  name: string
  sql: string
}

/** What one capability contributes to retention. */
export interface RetentionRules {
  aging?: readonly AgingTable[]
  keep?: readonly KeepRule[]
  removedWith?: readonly RemovedWith[]
}

/** The keys a batch removes, when other rows go with them. */
export const retentionVictims = 'temp.watchdesk_retention'

export const defaultBatchRows = 1_000
/** Pause after each batch, as a multiple of the batch's own time. */
const pauseFactor = 1
const dayMs = 86_400_000

/** Every capability's rules as one (the order of the list is the order of the statements). */
export function joinRetentionRules(all: readonly RetentionRules[]): Required<RetentionRules> {
  return {
    aging: all.flatMap((r) => r.aging ?? []),
    keep: all.flatMap((r) => r.keep ?? []),
    removedWith: all.flatMap((r) => r.removedWith ?? []),
  }
}

/** The statements removing one batch of `aging`'s rows older than `cutoff`. */
function agingBatch(aging: AgingTable, rules: Required<RetentionRules>, cutoff: number, batch: number) {
  const params = { cutoff, batch }
  const { table, key, alias } = aging
  const keeps = rules.keep
    .filter((k) => k.table === table)
    .map((k) => ` AND NOT ${k.keepsWhile}`)
    .join('')
  const order = aging.orderBy ? ` ORDER BY ${aging.orderBy}` : ''
  const chosen = `SELECT ${alias}.${key} FROM ${table} ${alias} WHERE ${aging.olderThan}${keeps}${order} LIMIT @batch`
  const dependents = rules.removedWith.filter((d) => d.table === table)
  if (dependents.length === 0)
    return [{ sql: `DELETE FROM ${table} WHERE ${key} IN (${chosen})`, params, counts: true }]
  // The victims are chosen once, so what goes with them and they themselves are the same rows.
  return [
    { sql: `CREATE TEMP TABLE IF NOT EXISTS watchdesk_retention (id INTEGER PRIMARY KEY)`, params: {} },
    { sql: `DELETE FROM ${retentionVictims}`, params: {} },
    { sql: `INSERT INTO ${retentionVictims} (id) ${chosen}`, params },
    ...dependents.map((d) => ({ sql: d.sql, params: {} })),
    {
      sql: `DELETE FROM ${table} WHERE ${key} IN (SELECT id FROM ${retentionVictims})`,
      params: {},
      counts: true,
    },
  ]
}

/** The statements of one batch of `kind` older than `cutoff` (ms since the epoch). */
export function pruneBatch(
  rules: Required<RetentionRules>,
  kind: RetentionKind,
  cutoff: number,
  batch = defaultBatchRows,
): PruneStatement[] {
  return rules.aging.filter((a) => a.kind === kind).flatMap((a) => agingBatch(a, rules, cutoff, batch))
}

/** What the last run removed and when the next one is due (the contract's RetentionStatus); kept
 * in the meta table (key `retention`) so `watchdesk storage` in another process reads it. */
export type RetentionState = RetentionStatus

const zero = (): Record<RetentionKind, number> => ({ events: 0, attempts: 0, alerts: 0, rejections: 0 })

export function emptyRetentionState(): RetentionState {
  return {
    lastRunAt: null,
    lastRunMs: null,
    nextRunAt: null,
    removed: zero(),
    removedTotal: zero(),
    days: zero(),
    error: null,
  }
}

export function readRetentionState(db: Database): RetentionState {
  try {
    const row = db.prepare(`SELECT value FROM meta WHERE key = 'retention'`).get() as
      { value: string } | undefined
    return row
      ? { ...emptyRetentionState(), ...(JSON.parse(row.value) as Partial<RetentionState>) }
      : emptyRetentionState()
  } catch {
    return emptyRetentionState()
  }
}

export function saveRetentionStatement(state: RetentionState): PruneStatement[] {
  return [
    {
      sql: `INSERT INTO meta (key, value) VALUES ('retention', json(@value))
              ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      // A text parameter among numbers: the type says number, SQLite takes either.
      params: { value: JSON.stringify(state) as unknown as number },
    },
  ]
}

export type PruneRunner = (
  statements: PruneStatement[],
) => Promise<{ ok: true; changes: number } | { ok: false; message: string }>

/** Where retention writes: a SQLite database through its one writer, or a relay's PostgreSQL. */
export interface RetentionTarget {
  /** The kinds this store holds (a relay has no forward attempts or alerts). */
  kinds: readonly RetentionKind[]
  /** Removes at most `batch` rows of `kind` older than `cutoff`, in one short transaction. */
  prune(
    kind: RetentionKind,
    cutoff: number,
    batch: number,
  ): Promise<{ ok: true; changes: number } | { ok: false; message: string }>
  save(state: RetentionState): Promise<{ ok: true } | { ok: false; message: string }>
}

/** A SQLite database's target: batches of `rules` run by `run` (the commit worker). */
export function sqliteRetentionTarget(rules: Required<RetentionRules>, run: PruneRunner): RetentionTarget {
  return {
    kinds: retentionKinds,
    prune: (kind, cutoff, batch) => run(pruneBatch(rules, kind, cutoff, batch)),
    save: async (state) => {
      const done = await run(saveRetentionStatement(state))
      return done.ok ? { ok: true } : done
    },
  }
}

/** A run's log line: a warning when it could not finish, a line when it removed rows. */
export function logRetentionRun(log: Logger): (state: RetentionState) => void {
  return (state) => {
    if (state.error) log.warn('retention could not finish', { error: state.error })
    else if (Object.values(state.removed).some((n) => n > 0))
      log.info('retention removed old rows', { ...state.removed, ms: state.lastRunMs })
  }
}

export interface RetentionOptions {
  config: () => RetentionConfig
  target: RetentionTarget
  /** The state as stored (read once at start, to carry the totals on). */
  initial: RetentionState
  now?: () => number
  batchRows?: number
  onRun?: (state: RetentionState) => void
}

export interface Retention {
  state(): RetentionState
  /** One run over every kind now (start-up, the interval, tests). */
  runNow(): Promise<RetentionState>
  stop(): void
}

/** Applies retention at start and then every `retention.intervalMinutes`. */
export function startRetention(options: RetentionOptions): Retention {
  const now = options.now ?? Date.now
  const batch = options.batchRows ?? defaultBatchRows
  let state = options.initial
  let timer: NodeJS.Timeout | null = null
  let stopped = false
  let running: Promise<RetentionState> | null = null

  async function pass(): Promise<RetentionState> {
    const started = now()
    const config = options.config()
    const removed = zero()
    const days = zero()
    let error: string | null = null
    for (const kind of options.target.kinds) {
      days[kind] = config[kind].days
      if (config[kind].days === 0 || stopped) continue
      const cutoff = started - config[kind].days * dayMs
      for (;;) {
        const batchStarted = performance.now()
        const done = await options.target.prune(kind, cutoff, batch)
        const batchMs = performance.now() - batchStarted
        if (!done.ok) {
          error = `${kind}: ${done.message}`
          break
        }
        removed[kind] += done.changes
        if (done.changes < batch || stopped) break
        // A pause as long as the batch took: retention holds the one writer at most half the
        // time, so deliveries never queue behind batch after batch (bench/retention.ts).
        await new Promise((resolve) => setTimeout(resolve, Math.max(1, batchMs * pauseFactor)))
      }
    }
    const removedTotal = { ...state.removedTotal }
    for (const kind of retentionKinds) removedTotal[kind] += removed[kind]
    state = {
      lastRunAt: started,
      lastRunMs: now() - started,
      nextRunAt: now() + config.intervalMinutes * 60_000,
      removed,
      removedTotal,
      days,
      error,
    }
    const saved = await options.target.save(state)
    if (!saved.ok && state.error === null) state = { ...state, error: `saving the state: ${saved.message}` }
    options.onRun?.(state)
    return state
  }

  function schedule(): void {
    if (stopped) return
    const delay = Math.max(0, (state.nextRunAt ?? now()) - now())
    timer = setTimeout(() => void runNow().finally(schedule), delay)
    timer.unref()
  }

  function runNow(): Promise<RetentionState> {
    running ??= pass().finally(() => (running = null))
    return running
  }

  void runNow().finally(schedule)
  return {
    state: () => state,
    runNow,
    stop() {
      stopped = true
      if (timer) clearTimeout(timer)
    },
  }
}
