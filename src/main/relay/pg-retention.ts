import type pg from 'pg'
import { emptyRetentionState } from '../db/retention'
import type { RetentionKind, RetentionState, RetentionTarget } from '../db/retention'

/** Retention on a relay's PostgreSQL store (events with their bodies, rejections: the kinds a relay
 * holds). Each batch is one short statement; `SKIP LOCKED` lets a batch pass over rows an ingest
 * transaction holds (a redelivery's upsert), so neither waits for the other, and two relays on one
 * database prune side by side without blocking each other. */
export function postgresRetentionTarget(
  pool: pg.Pool,
): RetentionTarget & { load(): Promise<RetentionState> } {
  const statements: Partial<Record<RetentionKind, string>> = {
    events: `DELETE FROM events WHERE seq IN (
               SELECT seq FROM events WHERE received_at < $1 ORDER BY received_at, seq LIMIT $2 FOR UPDATE SKIP LOCKED)`,
    rejections: `DELETE FROM webhook_rejections WHERE seq IN (
                   SELECT seq FROM webhook_rejections WHERE at < $1 ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED)`,
  }
  const failed = (error: unknown) => ({ ok: false as const, message: (error as Error).message })
  return {
    kinds: ['events', 'rejections'],
    async prune(kind, cutoff, batch) {
      const sql = statements[kind]
      if (!sql) return { ok: true, changes: 0 }
      try {
        const result = await pool.query(sql, [cutoff, batch])
        return { ok: true, changes: result.rowCount ?? 0 }
      } catch (error) {
        return failed(error)
      }
    },
    async save(state) {
      try {
        await pool.query(
          `INSERT INTO relay_meta (key, value) VALUES ('retention', $1)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [JSON.stringify(state)],
        )
        return { ok: true }
      } catch (error) {
        return failed(error)
      }
    },
    async load() {
      try {
        const { rows } = await pool.query<{ value: string }>(
          `SELECT value FROM relay_meta WHERE key = 'retention'`,
        )
        return rows[0]
          ? { ...emptyRetentionState(), ...(JSON.parse(rows[0].value) as Partial<RetentionState>) }
          : emptyRetentionState()
      } catch {
        return emptyRetentionState()
      }
    },
  }
}
