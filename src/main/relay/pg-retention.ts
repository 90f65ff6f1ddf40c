import type pg from 'pg'
import { emptyRetentionState } from '../db/retention'
import type { RetentionKind, RetentionState, RetentionTarget } from '../db/retention'

/** Retention on a relay's PostgreSQL store (events with their bodies, rejections: the kinds a relay
 * holds). A batch runs as statements of at most `pgStepRows` rows, each its own transaction (as the
 * SQLite commit worker runs a batch in steps): a delivery's commit that waits for the WAL flush of
 * a removal waits for a small one. `SKIP LOCKED` lets a step pass over rows an ingest transaction
 * holds (a redelivery's upsert), so neither waits for the other, and two relays on one database
 * prune side by side without blocking each other. */
export const pgStepRows = 200

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
      let changes = 0
      try {
        while (changes < batch) {
          const asked = Math.min(pgStepRows, batch - changes)
          const done = (await pool.query(sql, [cutoff, asked])).rowCount ?? 0
          changes += done
          if (done < asked) break
        }
        return { ok: true, changes }
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
