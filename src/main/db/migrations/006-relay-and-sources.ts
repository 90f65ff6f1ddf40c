import type { Migration } from './migration'

/** The relay and its consoles: tokens a relay accepts on its sync API (only a hash is kept), the
 * source an event was synced from (null for the local listener), and each source's cursor. */
export const migration006: Migration = {
  version: 6,
  name: 'relay tokens and sources',
  up(db) {
    db.exec(`
      ALTER TABLE events ADD COLUMN source TEXT;
      CREATE TABLE relay_tokens (
        name TEXT PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
      CREATE TABLE source_cursors (
        name TEXT PRIMARY KEY,
        cursor TEXT NOT NULL,
        at INTEGER NOT NULL
      ) STRICT;
    `)
  },
}
