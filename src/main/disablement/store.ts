import type { Database } from 'better-sqlite3'
import type { DownSpan } from './forecast'

/** Outage spans older than this are history: no delivery's ladder reaches back further (26 h 36 min)
 * with room for a failure still being shown. */
export const keepOutagesMs = 7 * 86_400_000

/** The watch's own table (`reachability_outages`, migration 015): its one writer is the watch; the
 * MCP read model reads it. */
export interface OutageStore {
  /** `cause` failing at `at`: opens its span, or marks the open one still failing. */
  down(cause: string, at: number, detail: string): void
  /** `cause` fine again at `at`: closes its open span there. */
  up(cause: string, at: number): void
  /** Spans open at a restart end at their last sign (`seen_at`): what came after is the listener's
   * own outage (listener_runs) or a new span. Also forgets spans past `keepOutagesMs`. */
  closeStale(now: number): void
  spans(since: number): DownSpan[]
  /** Failures of `endpoint` marked up to `through` were answered (deliveries arrive again). */
  settle(endpoint: string, through: number): void
  /** Up to when the endpoint's failures are answered (-Infinity: none). */
  settledThrough(endpoint: string): number
}

interface Row {
  cause: string
  started_at: number
  ended_at: number | null
  detail: string
}

export function createOutageStore(db: Database): OutageStore {
  return {
    down(cause, at, detail) {
      const open = db
        .prepare(
          'UPDATE reachability_outages SET seen_at = ?, detail = ? WHERE cause = ? AND ended_at IS NULL',
        )
        .run(at, detail, cause)
      if (open.changes === 0)
        db.prepare(
          'INSERT INTO reachability_outages (cause, started_at, seen_at, ended_at, detail) VALUES (?, ?, ?, NULL, ?)',
        ).run(cause, at, at, detail)
    },
    up(cause, at) {
      db.prepare(
        'UPDATE reachability_outages SET ended_at = max(?, seen_at) WHERE cause = ? AND ended_at IS NULL',
      ).run(at, cause)
    },
    closeStale(now) {
      db.prepare('UPDATE reachability_outages SET ended_at = seen_at WHERE ended_at IS NULL').run()
      db.prepare('DELETE FROM reachability_outages WHERE ended_at < ?').run(now - keepOutagesMs)
    },
    spans(since) {
      const rows = db
        .prepare(
          'SELECT cause, started_at, ended_at, detail FROM reachability_outages WHERE ended_at IS NULL OR ended_at >= ? ORDER BY started_at',
        )
        .all(since) as Row[]
      return rows.map((r) => ({ cause: r.cause, from: r.started_at, to: r.ended_at, detail: r.detail }))
    },
    settle(endpoint, through) {
      db.prepare(
        'INSERT INTO reachability_settled (endpoint, through) VALUES (?, ?) ON CONFLICT (endpoint) DO UPDATE SET through = max(through, excluded.through)',
      ).run(endpoint, through)
    },
    settledThrough(endpoint) {
      const row = db.prepare('SELECT through FROM reachability_settled WHERE endpoint = ?').get(endpoint) as
        { through: number } | undefined
      return row?.through ?? -Infinity
    },
  }
}
