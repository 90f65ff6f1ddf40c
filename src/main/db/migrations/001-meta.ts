import type { Migration } from './migration'

/** Released in 0.1.0. Fixed forever: a change to the schema is a new numbered file. */
export const migration001: Migration = {
  version: 1,
  name: 'meta',
  up(db) {
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`)
  },
}
