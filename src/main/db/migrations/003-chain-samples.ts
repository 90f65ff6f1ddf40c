import type { Migration } from './migration'

/** Released in 0.1.0. Fixed forever: a change to the schema is a new numbered file. */
export const migration003: Migration = {
  version: 3,
  name: 'chain samples',
  up(db) {
    db.exec(`
      CREATE TABLE chain_samples (
        service_id INTEGER NOT NULL,
        bucket_ms INTEGER NOT NULL,
        t INTEGER NOT NULL,
        n INTEGER NOT NULL,
        errors INTEGER NOT NULL,
        status TEXT NOT NULL,
        head INTEGER,
        age_ms INTEGER,
        lag_blocks INTEGER,
        lag_ms INTEGER,
        latency_ms INTEGER,
        error_code INTEGER,
        error TEXT,
        PRIMARY KEY (service_id, bucket_ms, t)
      ) STRICT, WITHOUT ROWID;
    `)
  },
}
