import type { Migration } from './migration'

/** The forward outbox: one row per (event, target) enqueued in the transaction that stores the
 * event, its delivery attempts, and the routing the commit transaction reads (target → type
 * patterns, rewritten whenever the targets change). */
export const migration007: Migration = {
  version: 7,
  name: 'forward outbox',
  up(db) {
    db.exec(`
      CREATE TABLE forward_routes (
        target TEXT NOT NULL,
        pattern TEXT NOT NULL,
        PRIMARY KEY (target, pattern)
      ) STRICT, WITHOUT ROWID;
      CREATE TABLE forward_outbox (
        id INTEGER PRIMARY KEY,
        event_seq INTEGER NOT NULL,
        target TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        due_at INTEGER NOT NULL,
        lease_until INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        last_at INTEGER,
        last_status INTEGER,
        last_error TEXT,
        replay INTEGER NOT NULL DEFAULT 0,
        edited_body BLOB
      ) STRICT;
      CREATE INDEX forward_outbox_open ON forward_outbox (target, due_at) WHERE state IN ('pending', 'failing');
      CREATE INDEX forward_outbox_event ON forward_outbox (event_seq);
      CREATE TABLE forward_attempts (
        id INTEGER PRIMARY KEY,
        outbox_id INTEGER NOT NULL,
        event_seq INTEGER NOT NULL,
        target TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        at INTEGER NOT NULL,
        status INTEGER,
        latency_ms REAL,
        error TEXT,
        response TEXT,
        edited INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX forward_attempts_event ON forward_attempts (event_seq, id);
    `)
  },
}
