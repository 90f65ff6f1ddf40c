import { resolve } from 'node:path'
import pg from 'pg'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { maxEventSeq, openDatabase, skipHistory } from '../db'
import { maskUrlSecrets } from '../../shared/mask'
import { migratePostgresUrl, pgConfigOf, safePostgresUrl } from './pg-connection'
import { parsePgCursor } from './pg-reads'

export interface CopyProgress {
  /** Events read from the source in this run so far (already present in the target included). */
  read: number
  /** Events inserted into the target in this run. */
  inserted: number
  /** Events left to read in this run when it started. */
  total: number
}

const columns = [
  'id',
  'type',
  'grp',
  'created_at',
  'created_ms',
  'received_at',
  'last_delivery_at',
  'deliveries',
  'endpoint',
  'data_id',
  'body',
  'data',
  'conflicts',
  'conflict_body',
] as const
const pgTypes = [
  'text',
  'text',
  'text',
  'text',
  'bigint',
  'bigint',
  'bigint',
  'integer',
  'text',
  'text',
  'bytea',
  'text',
  'integer',
  'bytea',
]

type Row = Record<(typeof columns)[number], unknown> & { seq: number }

/** `watchdesk store copy --from sqlite:PATH --to postgres://…` (docs/storage.md): events with their
 * raw bodies, delivery counts and conflicts, in batches; each batch and the position it reached
 * commit in one PostgreSQL transaction (relay_meta `copy:<file>`), so a killed run continues where
 * it stopped and an id already in the target (received there too) is kept as it is. */
export async function copySqliteToPostgres(
  file: string,
  url: string,
  options: { batch?: number; onProgress?: (p: CopyProgress) => void } = {},
): Promise<Result<CopyProgress & { from: number }>> {
  const batch = options.batch ?? 1_000
  const source = openDatabase(resolve(file), { readonly: true })
  if (!source.ok) return source
  const migrated = await migratePostgresUrl(url)
  if (!migrated.ok) {
    source.value.close()
    return migrated
  }
  const config = pgConfigOf(url)
  if (!config.ok) {
    source.value.close()
    return config
  }
  const client = new pg.Client(config.value)
  const key = `copy:sqlite:${resolve(file)}`
  try {
    await client.connect()
    const { rows: at } = await client.query<{ value: string }>(
      'SELECT value FROM relay_meta WHERE key = $1',
      [key],
    )
    const from = at[0] ? Number(at[0].value) : 0
    const db = source.value
    const total = (db.prepare('SELECT count(*) AS n FROM events WHERE seq > ?').get(from) as { n: number }).n
    const page = db.prepare(
      `SELECT seq, ${columns.join(', ')} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`,
    )
    const insert = `INSERT INTO events (${columns.join(', ')})
      SELECT * FROM unnest(${pgTypes.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})
      ON CONFLICT (id) DO NOTHING`
    const progress: CopyProgress = { read: 0, inserted: 0, total }
    let last = from
    for (;;) {
      const rows = page.all(last, batch) as Row[]
      if (rows.length === 0) break
      last = rows.at(-1)!.seq
      await client.query('BEGIN')
      try {
        const done = await client.query(
          insert,
          columns.map((c) => rows.map((r) => r[c] ?? null)),
        )
        await client.query(
          `INSERT INTO relay_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [key, String(last)],
        )
        await client.query('COMMIT')
        progress.read += rows.length
        progress.inserted += done.rowCount ?? 0
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {})
        throw error
      }
      options.onProgress?.({ ...progress })
    }
    return ok({ ...progress, from })
  } catch (error) {
    return err(
      'unavailable',
      `Copying ${file} to ${safePostgresUrl(url)} stopped: ${(error as Error).message}. Run the same command again to continue where it stopped.`,
    )
  } finally {
    source.value.close()
    await client.end().catch(() => {})
  }
}

/** `watchdesk store copy --from postgres://… --to sqlite:PATH` (docs/storage.md): the team store's
 * events back into a SQLite file (a SQLite relay's, or a data dir), raw bodies, delivery counts and
 * conflicts as they are. Read in the relay's sync order, (txid, seq) below the oldest transaction
 * still running (as its sync API reads, pg-store.ts readAfter), so an event committing while a run
 * reads is copied by that run or the next, never skipped. Each batch and the position it reached
 * commit in one SQLite transaction (meta `copy:<URL without secrets>`), so a killed run continues
 * where it stopped; an id already in the file is kept as it is. Copied events are the file's own
 * (`source` NULL): a SQLite relay on it serves them to its consoles. */
export async function copyPostgresToSqlite(
  url: string,
  file: string,
  options: { batch?: number; onProgress?: (p: CopyProgress) => void } = {},
): Promise<Result<CopyProgress & { from: string }>> {
  const batch = options.batch ?? 1_000
  const config = pgConfigOf(url)
  if (!config.ok) return config
  const target = openDatabase(resolve(file))
  if (!target.ok) return target
  const db = target.value
  const client = new pg.Client(config.value)
  client.on('error', () => {})
  const key = `copy:postgres:${safePostgresUrl(url)}`
  try {
    await client.connect()
    const { rows: table } = await client.query<{ t: string | null }>(
      "SELECT to_regclass('events')::text AS t",
    )
    if (!table[0]?.t)
      return err(
        'not_found',
        `${safePostgresUrl(url)} holds no watchdesk relay store (no events table): check the database name.`,
      )
    const stored = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as
      { value: string } | undefined
    const from = stored?.value ?? '0'
    let [txid, seq] = parsePgCursor(from) ?? [0, 0]
    const bound = 'txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint'
    const { rows: counted } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE (txid, seq) > ($1, $2) AND ${bound}`,
      [txid, seq],
    )
    const progress: CopyProgress = { read: 0, inserted: 0, total: counted[0]?.n ?? 0 }
    const insert = db.prepare(
      `INSERT INTO events (${columns.join(', ')}, source)
       VALUES (${columns.map((c) => `@${c}`).join(', ')}, NULL) ON CONFLICT (id) DO NOTHING`,
    )
    const reached = db.prepare(
      'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    )
    const write = db.transaction((rows: Row[], position: string) => {
      const seqBefore = maxEventSeq(db)
      let inserted = 0
      for (const r of rows) inserted += insert.run(sqliteRow(r)).changes
      // Copied into a console's data dir, the history must not read as events just arrived (the
      // alert rule would alert on all of it).
      skipHistory(db, seqBefore)
      reached.run(key, position)
      return inserted
    })
    for (;;) {
      const { rows } = await client.query<Row & { txid: number }>(
        `SELECT txid, seq, ${columns.join(', ')} FROM events
         WHERE (txid, seq) > ($1, $2) AND ${bound} ORDER BY txid, seq LIMIT $3`,
        [txid, seq, batch],
      )
      if (rows.length === 0) break
      const last = rows.at(-1)!
      ;[txid, seq] = [last.txid, last.seq]
      progress.inserted += write(rows, `${txid}.${seq}`)
      progress.read += rows.length
      options.onProgress?.({ ...progress })
    }
    return ok({ ...progress, from })
  } catch (error) {
    return err(
      'unavailable',
      `Copying ${safePostgresUrl(url)} to ${file} stopped: ${maskUrlSecrets((error as Error).message)}. Run the same command again to continue where it stopped.`,
    )
  } finally {
    db.close()
    await client.end().catch(() => {})
  }
}

/** A PostgreSQL row as SQLite's STRICT columns take it (bytea arrives as a Buffer, int8 as a
 * number through pgConfigOf's type parser). */
function sqliteRow(r: Row): Record<string, unknown> {
  return Object.fromEntries(columns.map((c) => [c, r[c] ?? null]))
}
