import type { Database } from 'better-sqlite3'

export interface Migration {
  version: number
  name: string
  up(db: Database): void
}

/** Numbered, append-only. A released migration is never edited: add the next number instead.
 * Each capability appends its own; the runner applies them in version order. */
export const migrations: Migration[] = [
  {
    version: 1,
    name: 'meta',
    up(db) {
      db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`)
    },
  },
]
