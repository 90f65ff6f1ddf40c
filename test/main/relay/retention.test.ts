import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../../../src/main/log'
import { postgresRetentionTarget } from '../../../src/main/relay/pg-retention'
import { startRelay } from '../../../src/main/relay'
import type { RelayStore } from '../../../src/main/relay'
import { createMemoryStore, observeSecrets } from '../../../src/main/secrets'
import { RetentionConfig } from '../../../src/shared/config'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { deliver, relaySecret, useRelays } from './helpers'

const dayMs = 86_400_000
const oldEvents = 5_000

/** Rows on both sides of the default ages, written straight into the store's tables. */
interface Seeder {
  run(sql: string, params: unknown[]): Promise<void>
  ids(): Promise<Set<string>>
  count(table: string): Promise<number>
  close(): Promise<void>
}

async function seed(db: Seeder, now: number): Promise<void> {
  const old = now - 100 * dayMs
  // One statement per kind: generate_series on PostgreSQL, a recursive CTE on SQLite, so the SQL
  // differs only in how numbers are generated.
  await db.run('events', [old, oldEvents, 'evt_old_'])
  await db.run('events', [now - 89 * dayMs, 100, 'evt_recent_'])
  await db.run('rejections', [now - 31 * dayMs, 300])
  await db.run('rejections', [now - 29 * dayMs, 30])
}

function sqliteSeeder(file: string): Seeder {
  const db = new BetterSqlite3(file)
  return {
    async run(kind, [at, n, prefix]) {
      if (kind === 'events')
        db.prepare(
          `WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n + 1 < ?)
           INSERT INTO events (id, type, grp, created_at, received_at, last_delivery_at, body, data)
           SELECT ? || n, 'payout.completed', 'payout', '2026-01-01T00:00:00Z', ? + n, ? + n, X'7b7d', '{}' FROM i`,
        ).run(n, prefix, at, at)
      else
        db.prepare(
          `WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n + 1 < ?)
           INSERT INTO webhook_rejections (at, path, status, reason, size, remote)
           SELECT ?, '/webhooks', 401, 'signature', 1, '127.0.0.1' FROM i`,
        ).run(n, at)
    },
    async ids() {
      return new Set((db.prepare('SELECT id FROM events').all() as { id: string }[]).map((r) => r.id))
    },
    async count(table) {
      return (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n
    },
    async close() {
      db.close()
    },
  }
}

async function postgresSeeder(url: string): Promise<Seeder> {
  const client = new pg.Client(url)
  await client.connect()
  return {
    async run(kind, [at, n, prefix]) {
      if (kind === 'events')
        await client.query(
          `INSERT INTO events (id, type, grp, created_at, received_at, last_delivery_at, body, data)
           SELECT $3 || n, 'payout.completed', 'payout', '2026-01-01T00:00:00Z', $1::bigint + n, $1::bigint + n, '\\x7b7d', '{}'
           FROM generate_series(0, $2::int - 1) AS n`,
          [at, n, prefix],
        )
      else
        await client.query(
          `INSERT INTO webhook_rejections (at, path, status, reason, size, remote)
           SELECT $1, '/webhooks', 401, 'signature', 1, '127.0.0.1' FROM generate_series(1, $2::int)`,
          [at, n],
        )
    },
    async ids() {
      const { rows } = await client.query<{ id: string }>('SELECT id FROM events')
      return new Set(rows.map((r) => r.id))
    },
    async count(table) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)
      return rows[0]!.n
    },
    close: () => client.end(),
  }
}

async function retentionWhileDelivering(store: RelayStore, db: Seeder): Promise<void> {
  await seed(db, Date.now())
  const relay = unwrap(
    await startRelay({
      store,
      secrets: observeSecrets(createMemoryStore({ 'webhook-secret:wh_relay': relaySecret })),
      log: silentLogger,
      listener: { host: '127.0.0.1', port: 0 },
      sync: { host: '127.0.0.1', port: 0 },
      retention: () => RetentionConfig.parse({}),
    }),
  )
  const acknowledged: string[] = []
  let delivering = true
  let n = 0
  const load = (async () => {
    while (delivering) {
      const id = `evt_live_${n++}`
      if ((await deliver(`${relay.listenerUrl}/webhooks`, id)) === 200) acknowledged.push(id)
    }
  })()
  try {
    const state = await waitFor(
      async () => {
        const s = await store.retention!.load()
        return s.lastRunAt !== null ? s : undefined
      },
      'the relay retention run',
      { timeoutMs: 60_000 },
    )
    await waitFor(() => acknowledged.length >= 20, '20 acknowledged deliveries', { timeoutMs: 30_000 })
    delivering = false
    await load
    expect(state.error).toBeNull()
    expect(state.removed).toMatchObject({ events: oldEvents, rejections: 300 })
    const ids = await db.ids()
    expect([...ids].filter((id) => id.startsWith('evt_old_'))).toEqual([])
    expect([...ids].filter((id) => id.startsWith('evt_recent_')).length).toBe(100)
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([])
    expect(await db.count('webhook_rejections')).toBe(30)
  } finally {
    delivering = false
    await load
    await relay.stop()
    await db.close()
  }
}

describe('retention on a relay store while deliveries arrive', () => {
  const relays = useRelays()
  const postgres = usePostgres()
  const tempDir = useTempDir('watchdesk-relay-retention-')

  it('SQLite: removes the events and rejections past their age, keeps the rest and every acknowledged delivery', async () => {
    const file = join(tempDir(), 'relay.db')
    const store = relays.sqliteStore(file)
    await retentionWhileDelivering(store, sqliteSeeder(file))
  }, 120_000)

  it('PostgreSQL: removes the events and rejections past their age, keeps the rest and every acknowledged delivery', async () => {
    const url = await postgres().createDatabase('relay_retention')
    const store = await relays.postgresStore(url)
    await retentionWhileDelivering(store, await postgresSeeder(url))
  }, 120_000)

  it('PostgreSQL: a batch is removed in transactions of at most 200 rows each', async () => {
    const url = await postgres().createDatabase('relay_retention_steps')
    // The store creates the schema; the batch then runs on a pool whose statements are counted.
    await relays.postgresStore(url)
    const seeder = await postgresSeeder(url)
    await seeder.run('events', [Date.now() - 100 * dayMs, 1_000, 'evt_old_'])
    const pool = new pg.Pool({ connectionString: url, max: 1 })
    const removedPerStatement: number[] = []
    const query = pool.query.bind(pool) as (sql: string, values: unknown[]) => Promise<pg.QueryResult>
    Object.assign(pool, {
      query: async (sql: string, values: unknown[]) => {
        const result = await query(sql, values)
        if (sql.trimStart().startsWith('DELETE')) removedPerStatement.push(result.rowCount ?? 0)
        return result
      },
    })
    try {
      const done = await postgresRetentionTarget(pool).prune('events', Date.now() - 90 * dayMs, 1_000)
      expect(done).toEqual({ ok: true, changes: 1_000 })
      expect(removedPerStatement).toEqual([200, 200, 200, 200, 200])
      expect(await seeder.count('events')).toBe(0)
    } finally {
      await pool.end()
      await seeder.close()
    }
  }, 60_000)
})
