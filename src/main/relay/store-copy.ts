import { resolve } from 'node:path'
import pg from 'pg'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { openDatabase } from '../db'
import { migratePostgresUrl, pgConfigOf, safePostgresUrl } from './pg-store'

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
