import type { Database } from 'better-sqlite3'
import type { ShapeChange } from '../../shared/contract/drift'
import type { LearnedShape } from './shape'
import { parseShape, serializeShape } from './shape'

/** A shape change as stored: the event that first showed it and what changed. */
export interface DriftRecord {
  id: number
  type: string
  eventId: string
  eventSeq: number
  at: number
  changes: ShapeChange[]
}

/** Tables this capability owns (migration 014). */
export const driftTables = ['drift_shapes', 'drift_changes', 'drift_cursor'] as const

/** The drift watch's SQL over its own tables: read at start (and by the CLI and MCP, read-only),
 * written by the watch alone. */
export interface DriftStore {
  cursor(): number
  shapes(): LearnedShape[]
  shape(type: string): LearnedShape | null
  drifts(limit: number): DriftRecord[]
  /** One transaction: the new changes, the shapes that moved, the cursor. Returns the changes with
   * their ids. */
  save(changes: Omit<DriftRecord, 'id'>[], shapes: LearnedShape[], cursor: number, at: number): DriftRecord[]
}

interface ChangeRow {
  id: number
  type: string
  event_id: string
  event_seq: number
  at: number
  changes: string
}

const toRecord = (row: ChangeRow): DriftRecord => ({
  id: row.id,
  type: row.type,
  eventId: row.event_id,
  eventSeq: row.event_seq,
  at: row.at,
  changes: JSON.parse(row.changes) as ShapeChange[],
})

export function createDriftStore(db: Database): DriftStore {
  return {
    cursor: () =>
      (db.prepare('SELECT seq FROM drift_cursor WHERE id = 1').get() as { seq: number } | undefined)?.seq ??
      0,
    shapes: () =>
      (
        db.prepare('SELECT type, shape FROM drift_shapes ORDER BY type').all() as {
          type: string
          shape: string
        }[]
      ).map((r) => parseShape(r.type, r.shape)),
    shape(type) {
      const row = db.prepare('SELECT shape FROM drift_shapes WHERE type = ?').get(type) as
        { shape: string } | undefined
      return row ? parseShape(type, row.shape) : null
    },
    drifts: (limit) =>
      (db.prepare('SELECT * FROM drift_changes ORDER BY id DESC LIMIT ?').all(limit) as ChangeRow[]).map(
        toRecord,
      ),
    save(changes, shapes, cursor, at) {
      const insert = db.prepare(
        'INSERT INTO drift_changes (type, event_id, event_seq, at, changes) VALUES (?, ?, ?, ?, ?)',
      )
      const upsert = db.prepare(
        `INSERT INTO drift_shapes (type, shape, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (type) DO UPDATE SET shape = excluded.shape, updated_at = excluded.updated_at`,
      )
      const move = db.prepare(
        'INSERT INTO drift_cursor (id, seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq',
      )
      return db.transaction(() => {
        const saved = changes.map((c) => {
          const { lastInsertRowid } = insert.run(
            c.type,
            c.eventId,
            c.eventSeq,
            c.at,
            JSON.stringify(c.changes),
          )
          return { ...c, id: Number(lastInsertRowid) }
        })
        for (const s of shapes) upsert.run(s.type, serializeShape(s), at)
        move.run(cursor)
        return saved
      })()
    },
  }
}
