import type { Migration } from './migration'

/** Released in 0.1.0. Fixed forever: a change to the schema is a new numbered file. */
export const migration002: Migration = {
  version: 2,
  name: 'webhook events',
  up(db) {
    // seq is arrival order; views page by (received_at, seq) newest first.
    db.exec(`
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        grp TEXT NOT NULL,
        created_at TEXT NOT NULL,
        created_ms INTEGER,
        received_at INTEGER NOT NULL,
        last_delivery_at INTEGER NOT NULL,
        deliveries INTEGER NOT NULL DEFAULT 1,
        endpoint TEXT,
        data_id TEXT,
        body BLOB NOT NULL,
        data TEXT NOT NULL
      ) STRICT;
      CREATE INDEX events_received ON events (received_at);
      CREATE INDEX events_type_received ON events (type, received_at);
      CREATE INDEX events_grp_received ON events (grp, received_at);
      CREATE INDEX events_data_id ON events (data_id) WHERE data_id IS NOT NULL;
      CREATE TABLE webhook_rejections (
        seq INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        path TEXT NOT NULL,
        status INTEGER NOT NULL,
        reason TEXT NOT NULL,
        size INTEGER NOT NULL,
        remote TEXT NOT NULL
      ) STRICT;
      CREATE TABLE listener_runs (
        id INTEGER PRIMARY KEY,
        started_at INTEGER NOT NULL,
        alive_at INTEGER NOT NULL,
        stopped_at INTEGER
      ) STRICT;
    `)
  },
}
