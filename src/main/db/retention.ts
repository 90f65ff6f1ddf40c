import { performance } from 'node:perf_hooks'
import type { Database } from 'better-sqlite3'
import { Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import type { RetentionConfig } from '../../shared/config'
import type { RetentionStatus } from '../../shared/contract/storage'

/** Retention (docs/storage.md#retention): rows older than `retention.<kind>.days` are removed in
 * small batches, each its own short transaction through the database's one writer, so a delivery
 * never waits behind a long delete. Events still in the forward queue (an outbox row pending or
 * failing) or the subject of an open incident are kept whatever their age. */

export const retentionKinds = ['events', 'attempts', 'alerts', 'rejections'] as const
export type RetentionKind = (typeof retentionKinds)[number]

/** One statement of a batch; all of a batch's statements run in one transaction, and the rows the
 * batch removed are the changes of the statements marked `counts`. */
export interface PruneStatement {
  sql: string
  params: Record<string, number>
  counts?: boolean
}

export const defaultBatchRows = 1_000
/** Pause after each batch, as a multiple of the batch's own time. */
const pauseFactor = 1
const dayMs = 86_400_000

const victims = 'temp.watchdesk_retention'
const keptEvent = `
  NOT EXISTS (SELECT 1 FROM forward_outbox o WHERE o.event_seq = e.seq AND o.state IN ('pending', 'failing'))
  AND NOT EXISTS (SELECT 1 FROM alert_incidents i WHERE i.closed_at IS NULL AND i.subject = 'event:' || e.id)`

/** The statements of one batch of `kind` older than `cutoff` (ms since the epoch). */
export function pruneBatch(kind: RetentionKind, cutoff: number, batch = defaultBatchRows): PruneStatement[] {
  const params = { cutoff, batch }
  switch (kind) {
    case 'events':
      // An event goes with its bodies and with its finished forward rows and their attempts.
      return [
        { sql: `CREATE TEMP TABLE IF NOT EXISTS watchdesk_retention (seq INTEGER PRIMARY KEY)`, params: {} },
        { sql: `DELETE FROM ${victims}`, params: {} },
        {
          sql: `INSERT INTO ${victims} (seq) SELECT seq FROM events e
                 WHERE received_at < @cutoff AND ${keptEvent} ORDER BY received_at LIMIT @batch`,
          params,
        },
        { sql: `DELETE FROM forward_attempts WHERE event_seq IN (SELECT seq FROM ${victims})`, params: {} },
        { sql: `DELETE FROM forward_outbox WHERE event_seq IN (SELECT seq FROM ${victims})`, params: {} },
        // The replay sentinel's record of its arrivals (src/main/replay/).
        { sql: `DELETE FROM event_arrivals WHERE event_seq IN (SELECT seq FROM ${victims})`, params: {} },
        { sql: `DELETE FROM replay_suspects WHERE event_seq IN (SELECT seq FROM ${victims})`, params: {} },
        { sql: `DELETE FROM events WHERE seq IN (SELECT seq FROM ${victims})`, params: {}, counts: true },
      ]
    case 'attempts':
      // Attempts of a forward still under way stay: they are its history on screen.
      return [
        {
          sql: `DELETE FROM forward_attempts WHERE id IN (
                  SELECT a.id FROM forward_attempts a WHERE a.at < @cutoff AND NOT EXISTS (
                    SELECT 1 FROM forward_outbox o WHERE o.id = a.outbox_id AND o.state IN ('pending', 'failing'))
                  ORDER BY a.id LIMIT @batch)`,
          params,
          counts: true,
        },
      ]
    case 'alerts':
      return [
        {
          sql: `DELETE FROM alert_incidents WHERE id IN (
                  SELECT id FROM alert_incidents WHERE closed_at IS NOT NULL AND closed_at < @cutoff LIMIT @batch)`,
          params,
          counts: true,
        },
        {
          sql: `DELETE FROM alert_log WHERE id IN (SELECT id FROM alert_log WHERE t < @cutoff ORDER BY t LIMIT @batch)`,
          params,
          counts: true,
        },
      ]
    case 'rejections':
      return [
        {
          sql: `DELETE FROM webhook_rejections WHERE seq IN (
                  SELECT seq FROM webhook_rejections WHERE at < @cutoff ORDER BY seq LIMIT @batch)`,
          params,
          counts: true,
        },
      ]
  }
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

/** A SQLite database's target: batches run by `run` (the commit worker). */
export function sqliteRetentionTarget(run: PruneRunner): RetentionTarget {
  return {
    kinds: retentionKinds,
    prune: (kind, cutoff, batch) => run(pruneBatch(kind, cutoff, batch)),
    save: async (state) => {
      const done = await run(saveRetentionStatement(state))
      return done.ok ? { ok: true } : done
    },
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

/** GET /metrics: rows removed per kind (last run and since the data dir began), the last and the
 * next run. Read from the state at scrape time. */
export function registerRetentionMetrics(registry: Registry, state: () => RetentionState): void {
  new Gauge({
    name: 'watchdesk_retention_removed_rows',
    help: 'Rows removed by retention, per kind: by the last run (run="last") and in total (run="total")',
    labelNames: ['kind', 'run'],
    registers: [registry],
    collect() {
      const s = state()
      for (const kind of retentionKinds) {
        this.set({ kind, run: 'last' }, s.removed[kind])
        this.set({ kind, run: 'total' }, s.removedTotal[kind])
      }
    },
  })
  new Gauge({
    name: 'watchdesk_retention_last_run_timestamp_seconds',
    help: 'When retention last ran (0 = not yet)',
    registers: [registry],
    collect() {
      this.set((state().lastRunAt ?? 0) / 1000)
    },
  })
  new Gauge({
    name: 'watchdesk_retention_next_run_timestamp_seconds',
    help: 'When retention runs next (0 = not scheduled)',
    registers: [registry],
    collect() {
      this.set((state().nextRunAt ?? 0) / 1000)
    },
  })
}
