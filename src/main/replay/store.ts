import type { Database, Statement } from 'better-sqlite3'
import type { CommitHook } from '../db'
import { readSnapshot } from '../db/snapshot'
import type { SuspectedReplay } from '../../shared/contract/replay'
import type { Arrival } from './ladder'

/** Every arrival of the listener's deliveries, recorded in the events commit transaction (so it is
 * durable before the 200, and rolls back with the event). Synced events are not recorded: their
 * arrivals are the relay's. */
export const recordArrivalOnCommit: CommitHook = {
  name: 'replay.arrival',
  sql: 'INSERT INTO event_arrivals (event_seq, at, remote, conflicted) VALUES (@seq, @at, @remote, @conflicted)',
  params: ['seq', 'at', 'remote', 'conflicted'],
}

export interface ReplayStore {
  /** One event's arrivals, oldest first. */
  arrivals(seq: number): Arrival[]
  /** Records an id's first suspected replay; false when one was recorded before (no new alert). */
  recordSuspect(seq: number, suspect: SuspectedReplay): boolean
  /** Events among the newest `window` arrivals that were redelivered and have no suspect recorded
   * (what a restart re-examines: a crash may have come between a commit and its classification). */
  unexamined(window: number): number[]
  /** Suspects first seen since `since`: the true count and the newest `limit`. */
  suspectsSince(since: number, limit: number): { count: number; recent: SuspectedReplay[] }
}

export function createReplayStore(db: Database): ReplayStore {
  const cache = new Map<string, Statement>()
  const prepared = (sql: string) => {
    let s = cache.get(sql)
    if (!s) cache.set(sql, (s = db.prepare(sql)))
    return s
  }
  return {
    arrivals(seq) {
      const rows = prepared(
        'SELECT at, remote, conflicted FROM event_arrivals WHERE event_seq = ? ORDER BY at, rowid',
      ).all(seq) as { at: number; remote: string | null; conflicted: number }[]
      return rows.map((r) => ({ at: r.at, remote: r.remote, conflicted: r.conflicted === 1 }))
    },
    recordSuspect(seq, s) {
      const done = prepared(
        `INSERT INTO replay_suspects (event_seq, id, type, at, remote, reason)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (event_seq) DO NOTHING`,
      ).run(seq, s.id, s.type, s.at, s.remote, s.reason)
      return done.changes === 1
    },
    unexamined(window) {
      const rows = prepared(
        `SELECT r.event_seq AS seq FROM (
           SELECT DISTINCT event_seq FROM event_arrivals
            WHERE rowid > (SELECT coalesce(max(rowid), 0) FROM event_arrivals) - ?) r
          WHERE (SELECT count(*) FROM event_arrivals a WHERE a.event_seq = r.event_seq) > 1
            AND NOT EXISTS (SELECT 1 FROM replay_suspects s WHERE s.event_seq = r.event_seq)
          ORDER BY r.event_seq`,
      ).all(window) as { seq: number }[]
      return rows.map((r) => r.seq)
    },
    // One snapshot: a suspect recorded (or removed by retention) between the two reads never
    // shows in the list beside a count that leaves it out.
    suspectsSince: (since, limit) =>
      readSnapshot(db, () => {
        const { count } = prepared('SELECT count(*) AS count FROM replay_suspects WHERE at >= ?').get(
          since,
        ) as {
          count: number
        }
        const recent = prepared(
          'SELECT id, type, at, remote, reason FROM replay_suspects WHERE at >= ? ORDER BY at DESC LIMIT ?',
        ).all(since, limit) as SuspectedReplay[]
        return { count, recent }
      }),
  }
}
