import type { PoolClient } from 'pg'

/** PostgreSQL's schema steps, numbered like SQLite's (src/main/db/migrations/): append-only, a
 * released step is never edited. Applied at start by whichever relay gets the advisory lock
 * first; the others wait for it and then find nothing left to do. */
export interface PgMigration {
  version: number
  name: string
  sql: string
}

export const pgMigrations: PgMigration[] = [
  {
    version: 1,
    name: 'events, rejections, relay tokens',
    sql: `
      CREATE TABLE events (
        seq bigserial PRIMARY KEY,
        -- The inserting transaction's id: the sync cursor orders by (txid, seq) and reads only below
        -- the oldest transaction still running, so a transaction committing late is never skipped.
        txid bigint NOT NULL DEFAULT (pg_current_xact_id()::text::bigint),
        id text NOT NULL UNIQUE,
        type text NOT NULL,
        grp text NOT NULL,
        created_at text NOT NULL,
        created_ms bigint,
        received_at bigint NOT NULL,
        last_delivery_at bigint NOT NULL,
        deliveries integer NOT NULL DEFAULT 1,
        endpoint text,
        data_id text,
        body bytea NOT NULL,
        data text NOT NULL,
        conflicts integer NOT NULL DEFAULT 0,
        conflict_body bytea
      );
      CREATE INDEX events_sync ON events (txid, seq);
      CREATE INDEX events_received ON events (received_at, seq);
      CREATE INDEX events_type_received ON events (type, received_at);
      CREATE INDEX events_grp_received ON events (grp, received_at);
      CREATE INDEX events_data_id ON events (data_id) WHERE data_id IS NOT NULL;
      CREATE TABLE webhook_rejections (
        seq bigserial PRIMARY KEY,
        at bigint NOT NULL,
        path text NOT NULL,
        status integer NOT NULL,
        reason text NOT NULL,
        size integer NOT NULL,
        remote text NOT NULL
      );
      CREATE TABLE relay_tokens (
        name text PRIMARY KEY,
        hash text NOT NULL UNIQUE,
        created_at bigint NOT NULL,
        revoked_at bigint
      );
      CREATE TABLE relay_meta (key text PRIMARY KEY, value text NOT NULL);
    `,
  },
  {
    version: 2,
    name: 'relay token scopes',
    // Tokens made before scopes existed could read the sync API and /metrics: 'read' keeps exactly that.
    sql: `ALTER TABLE relay_tokens ADD COLUMN scope text NOT NULL DEFAULT 'read'
            CHECK (scope IN ('read', 'metrics', 'admin'));`,
  },
  {
    version: 3,
    name: 'no data-id index on events',
    // No read of a relay store used it (issue 35, session 14): the one read of data_id is the
    // search's prefix range, which compares in "C" byte order (filter.ts) and so cannot use an
    // index in the column's own collation; it runs along events_received as before. Every
    // delivery paid a random-key B-tree insert (and its WAL) for it. IF EXISTS: a database whose
    // operator dropped it by hand migrates too.
    sql: `DROP INDEX IF EXISTS events_data_id;`,
  },
]

/** One key for "a watchdesk relay migrates this database" (any 64-bit number, fixed forever). */
const migrationLockKey = 74_217_422

/** The schema version recorded in the database (0 when it was never migrated). Reads only, so a
 * role without CREATE can ask. */
export async function schemaVersion(client: PoolClient): Promise<number> {
  const { rows: exists } = await client.query<{ t: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS t",
  )
  if (!exists[0]?.t) return 0
  const { rows } = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM schema_migrations',
  )
  return rows[0]?.version ?? 0
}

export interface MigrationOutcome {
  version: number
  /** Steps this call applied (0 when another relay or `relay migrate` had done it). */
  applied: number
}

/** Brings the schema up to date. A schema already current is only read (no DDL, no lock), so a
 * role with just the rights the running relay needs starts on it. Pending steps run in ONE
 * transaction under a transaction-level advisory lock: it is released by COMMIT or ROLLBACK on
 * whichever server connection ran it, so PgBouncer in transaction mode (which hands each
 * transaction any server connection) never leaves it held, and relays starting together wait for
 * the first and then find nothing to do. Refuses a database migrated by a newer watchdesk. */
export async function migratePostgres(
  client: PoolClient,
  migrations = pgMigrations,
): Promise<MigrationOutcome> {
  const latest = migrations.at(-1)?.version ?? 0
  const before = await schemaVersion(client)
  if (before > latest) throw newerSchema(before, latest)
  if (before === latest) return { version: latest, applied: 0 }
  await client.query('BEGIN')
  try {
    // The relay's connections have a statement and lock time-out (the commit deadline); waiting
    // for another relay's migration, or a long step, must not hit them (SET LOCAL: PgBouncer-safe).
    await client.query('SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0')
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey])
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`)
    const current = await schemaVersion(client)
    if (current > latest) throw newerSchema(current, latest)
    const pending = migrations.filter((m) => m.version > current)
    for (const m of pending) {
      await client.query(m.sql)
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name])
    }
    await client.query('COMMIT')
    return { version: latest, applied: pending.length }
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}

const newerSchema = (current: number, latest: number) =>
  new Error(
    `the database has schema version ${current}, but this watchdesk only knows versions up to ${latest}: upgrade watchdesk`,
  )
