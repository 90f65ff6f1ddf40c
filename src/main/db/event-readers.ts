/** Durable cursors over the events table's `seq` kept in `meta`: a reader takes every event after
 * its cursor as newly arrived. One list, so a writer that adds events which are not news (history
 * copied in by `watchdesk store copy`) can move every such reader past them. */
import type { Database } from 'better-sqlite3'

/** The alert rule's cursor (src/main/alerts/store.ts): events after it are alerted. */
export const alertEventCursorKey = 'alerts.event_cursor'

export const eventReaderCursorKeys = [alertEventCursorKey] as const

/** The highest `seq` stored (0 when none). */
export function maxEventSeq(db: Database): number {
  return (db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM events').get() as { seq: number }).seq
}

/** After events that are history were inserted (inside the same transaction): each reader whose
 * cursor had read everything up to `seqBefore` moves to the new end, so history is not news. A
 * reader that lags (events it has not read yet) keeps its place: those are news, and so, then,
 * is the history after them (the alert rule sums a burst into one alert). Returns the keys moved. */
export function skipHistory(db: Database, seqBefore: number): string[] {
  const read = db.prepare('SELECT value FROM meta WHERE key = ?')
  const write = db.prepare(
    'INSERT INTO meta (key, value) VALUES (?, CAST(? AS TEXT)) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  )
  const end = maxEventSeq(db)
  const moved: string[] = []
  for (const key of eventReaderCursorKeys) {
    const cursor = Number((read.get(key) as { value: string } | undefined)?.value ?? 0)
    if (cursor < seqBefore || end <= cursor) continue
    write.run(key, end)
    moved.push(key)
  }
  return moved
}
