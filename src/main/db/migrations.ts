import type { Database } from 'better-sqlite3'
import { createChainSamplesTable } from '../chains/history'

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
  {
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
  },
  {
    version: 3,
    name: 'chain samples',
    up: createChainSamplesTable,
  },
]
