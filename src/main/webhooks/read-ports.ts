import type { Database } from 'better-sqlite3'

/** Read ports over the events table for the CLI and MCP (a read-only connection of another
 * process): what they may know of it without naming it. */
export interface EventReads {
  /** Events received at or after `since` (ms). */
  countSince(since: number): number
  /** The newest event by arrival. */
  last(): { id: string; type: string; received_at: number } | undefined
  /** Up to 1,000 events after `seq`, in commit order. */
  after(seq: number): { id: string; seq: number }[]
  /** Events with a conflict in the `seq` range (from, to], in commit order. */
  conflicted(from: number, to: number): { id: string; seq: number; conflicts: number }[]
}

export function eventReads(db: Database): EventReads {
  const countSince = db.prepare('SELECT count(*) AS n FROM events WHERE received_at >= ?')
  const last = db.prepare('SELECT id, type, received_at FROM events ORDER BY received_at DESC LIMIT 1')
  const after = db.prepare('SELECT id, seq FROM events WHERE seq > ? ORDER BY seq LIMIT 1000')
  const conflicted = db.prepare(
    'SELECT id, seq, conflicts FROM events WHERE seq > ? AND seq <= ? AND conflicts > 0 ORDER BY seq',
  )
  return {
    countSince: (since) => (countSince.get(since) as { n: number }).n,
    last: () => last.get() as ReturnType<EventReads['last']>,
    after: (seq) => after.all(seq) as ReturnType<EventReads['after']>,
    conflicted: (from, to) => conflicted.all(from, to) as ReturnType<EventReads['conflicted']>,
  }
}
