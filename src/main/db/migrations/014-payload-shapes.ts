import type { Migration } from './migration'

/** The payload drift watch (src/main/drift/): each event type's learned `data` shape, the changes
 * seen (one row per event that first showed some), and how far it has read the events. */
export const migration014: Migration = {
  version: 14,
  name: 'payload shapes',
  up(db) {
    db.exec(`
      CREATE TABLE drift_shapes (
        type TEXT PRIMARY KEY,
        shape TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) STRICT;
      CREATE TABLE drift_changes (
        id INTEGER PRIMARY KEY,
        type TEXT NOT NULL,
        event_id TEXT NOT NULL,
        event_seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        changes TEXT NOT NULL
      ) STRICT;
      CREATE TABLE drift_cursor (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL
      ) STRICT;
    `)
  },
}
