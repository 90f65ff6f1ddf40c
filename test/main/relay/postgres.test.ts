import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import { pgMigrations } from '../../../src/main/relay/pg-migrations'
import { postgresReads } from '../../../src/main/relay/pg-reads'
import { postgresRetentionTarget } from '../../../src/main/relay/pg-retention'
import { migratePostgresUrl } from '../../../src/main/relay/pg-store'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { waitFor } from '../../support/wait'
import { deliver, envelopeBody, getJson, useRelays } from './helpers'

describe('relays on one PostgreSQL database', () => {
  const postgres = usePostgres()
  const relays = useRelays()
  let n = 0
  const freshDatabase = () => postgres().createDatabase(`relay_${++n}`)

  it('store the same 200 ids posted to two relays at once exactly once each, every delivery answered 200', async () => {
    const url = await freshDatabase()
    const [a, b] = await Promise.all([relays.postgresStore(url), relays.postgresStore(url)])
    const [ra, rb] = [await relays.relay(a), await relays.relay(b)]
    const ids = Array.from({ length: 200 }, (_, i) => `evt_twice_${String(i).padStart(3, '0')}`)
    const statuses = await Promise.all(
      ids.flatMap((id) => [
        deliver(`${ra.listenerUrl}/webhooks`, id),
        deliver(`${rb.listenerUrl}/webhooks`, id),
      ]),
    )
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    const client = new pg.Client(url)
    await client.connect()
    const { rows } = await client.query(
      'SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids, sum(deliveries)::int AS deliveries FROM events',
    )
    await client.end()
    expect(rows[0]).toEqual({ n: 200, ids: 200, deliveries: 400 })
    const [sa, sb] = [await ra.status(), await rb.status()]
    expect(sa.accepted + sb.accepted).toBe(200)
    expect(sa.duplicates + sb.duplicates).toBe(200)
  })

  it('apply the schema once when two relays start on an empty database together', async () => {
    const url = await freshDatabase()
    await Promise.all([relays.postgresStore(url), relays.postgresStore(url), relays.postgresStore(url)])
    const client = new pg.Client(url)
    await client.connect()
    const { rows } = await client.query('SELECT version FROM schema_migrations ORDER BY version')
    await client.end()
    expect(rows).toEqual(pgMigrations.map((m) => ({ version: m.version })))
  })

  it('never let the cursor skip a transaction that commits after a later one', async () => {
    const url = await freshDatabase()
    const store = await relays.postgresStore(url)
    const insert = (client: pg.Client, id: string) =>
      client.query(
        `INSERT INTO events (id, type, grp, created_at, received_at, last_delivery_at, body, data)
         VALUES ($1, 'funding.completed', 'payments', '2025-01-01T00:00:00Z', 1, 1, '\\x7b7d', '{}')`,
        [id],
      )
    const early = new pg.Client(url)
    const late = new pg.Client(url)
    await Promise.all([early.connect(), late.connect()])
    try {
      // The early transaction takes its id and the first seq, then stalls; the late one commits.
      await early.query('BEGIN')
      await insert(early, 'evt_early')
      await late.query('BEGIN')
      await insert(late, 'evt_late')
      await late.query('COMMIT')
      // A seq cursor would hand out evt_late (seq 2) now and never evt_early (seq 1).
      const whileEarlyRuns = unwrap(await store.readAfter('0', 100))
      expect(whileEarlyRuns.events.map((e) => e.id)).toEqual([])
      expect(whileEarlyRuns.next).toBe('0')
      await early.query('COMMIT')
      const after = unwrap(await store.readAfter(whileEarlyRuns.next, 100))
      expect(after.events.map((e) => e.id)).toEqual(['evt_early', 'evt_late'])
      expect(unwrap(await store.readAfter(after.next, 100)).events).toEqual([])
    } finally {
      await Promise.all([early.end(), late.end()])
    }
  })

  it('hand a reader every event exactly once while four writers commit out of order', async () => {
    const url = await freshDatabase()
    const store = await relays.postgresStore(url)
    const writers = await Promise.all(
      [0, 1, 2, 3].map(async () => {
        const c = new pg.Client(url)
        await c.connect()
        return c
      }),
    )
    const written: string[] = []
    const write = async (c: pg.Client, w: number) => {
      for (let t = 0; t < 25; t++) {
        await c.query('BEGIN')
        const ids = Array.from({ length: 1 + ((t * 7 + w) % 5) }, (_, i) => `evt_w${w}_t${t}_${i}`)
        for (const id of ids) {
          await c.query(
            `INSERT INTO events (id, type, grp, created_at, received_at, last_delivery_at, body, data)
             VALUES ($1, 'x', 'unknown', 'now', 1, 1, '\\x7b7d', '{}')`,
            [id],
          )
          // Interleave: other writers take ids and seqs between these inserts.
          await new Promise((r) => setImmediate(r))
        }
        await c.query('COMMIT')
        written.push(...ids)
      }
    }
    const seen: string[] = []
    let cursor = '0'
    let writing = true
    const reader = (async () => {
      while (writing || seen.length < written.length) {
        const page = unwrap(await store.readAfter(cursor, 7))
        seen.push(...page.events.map((e) => e.id))
        cursor = page.next
        if (!writing && page.events.length === 0 && seen.length >= written.length) break
      }
    })()
    await Promise.all(writers.map((c, w) => write(c, w)))
    writing = false
    await reader
    await Promise.all(writers.map((c) => c.end()))
    expect(seen.length).toBe(written.length)
    expect(new Set(seen).size).toBe(seen.length)
    expect([...seen].sort()).toEqual([...written].sort())
  })

  it('refuse a revoked token at once, on requests and on an open stream', async () => {
    const store = await relays.postgresStore(await freshDatabase())
    const relay = await relays.relay(store, { heartbeatMs: 200 })
    const token = unwrap(await createRelayToken(store, 'laptop'))
    expect(token).toMatch(/^wdr_/)
    expect((await getJson(`${relay.syncUrl}/sync/events?after=0`, token)).status).toBe(200)
    expect((await getJson(`${relay.syncUrl}/sync/events?after=0`)).status).toBe(401)
    expect((await getJson(`${relay.syncUrl}/sync/events?after=0`, 'wdr_not_a_token')).status).toBe(401)
    const stream = await fetch(`${relay.syncUrl}/sync/stream?after=0`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(stream.status).toBe(200)
    const reader = stream.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    const readUntil = async (what: RegExp) =>
      waitFor(async () => {
        const chunk = await reader.read()
        if (chunk.value) text += decoder.decode(chunk.value)
        return what.test(text) || chunk.done ? text : undefined
      }, `the stream to say ${what}`)
    await readUntil(/event: heartbeat/)
    expect(await store.tokens.revoke('laptop', Date.now())).toBe(true)
    expect((await getJson(`${relay.syncUrl}/sync/events?after=0`, token)).status).toBe(401)
    expect(await readUntil(/event: revoked/)).toMatch(/the relay token was revoked/)
    const tokens = await store.tokens.list()
    expect(tokens.map((t) => [t.name, t.revokedAt !== null])).toEqual([['laptop', true]])
    // Only the hash is stored.
    const client = new pg.Client(store.where)
    await client.connect()
    const { rows } = await client.query('SELECT hash FROM relay_tokens')
    await client.end()
    expect(rows[0].hash).toMatch(/^[0-9a-f]{64}$/)
    expect(rows[0].hash).not.toContain(token.slice(4))
  })

  it('serves committed events over the sync API in commit order with a next cursor', async () => {
    const store = await relays.postgresStore(await freshDatabase())
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'reader'))
    for (const id of ['evt_s1', 'evt_s2', 'evt_s3'])
      expect(await deliver(`${relay.listenerUrl}/webhooks`, id)).toBe(200)
    const first = await getJson(`${relay.syncUrl}/sync/events?after=0&limit=2&count=1`, token)
    expect(first.body.events.map((e: any) => e.id)).toEqual(['evt_s1', 'evt_s2'])
    expect(first.body.remaining).toBe(1)
    expect(Buffer.from(first.body.events[0].body, 'base64').toString()).toBe(envelopeBody('evt_s1'))
    const second = await getJson(`${relay.syncUrl}/sync/events?after=${first.body.next}&limit=2`, token)
    expect(second.body.events.map((e: any) => e.id)).toEqual(['evt_s3'])
    expect((await getJson(`${relay.syncUrl}/sync/events?after=nonsense`, token)).status).toBe(400)
    const listener = await getJson(`${relay.syncUrl}/sync/listener`, token)
    expect(listener.body).toMatchObject({ listening: true, accepted: 3, duplicates: 0 })
  })

  it('refuse a delivery PostgreSQL can never store alone (400, recorded), storing the others of its batch', async () => {
    const store = await relays.postgresStore(await freshDatabase())
    const relay = await relays.relay(store)
    const webhooks = `${relay.listenerUrl}/webhooks`
    // A NUL character is valid JSON but can never be stored in a PostgreSQL text column.
    const poison = envelopeBody('evt_poison', 'funding.completed').replace(
      '"funding.completed"',
      '"funding.\\u0000completed"',
    )
    const ids = Array.from({ length: 20 }, (_, i) => `evt_batch_${i}`)
    const [poisoned, ...others] = await Promise.all([
      deliver(webhooks, 'evt_poison', poison),
      ...ids.map((id) => deliver(webhooks, id)),
    ])
    expect(poisoned).toBe(400)
    expect(others).toEqual(ids.map(() => 200))
    const page = unwrap(await store.readAfter('0', 100))
    expect(page.events.map((e) => e.id).sort()).toEqual([...ids].sort())
    await waitFor(
      async () => (await store.recentRejections(10)).find((r) => r.status === 400),
      'the rejection to be recorded',
    )
  })

  // Every index costs each delivery its insert and its WAL (issue 35): one no read used was dropped
  // (migration 3). The reads are the store's own, recorded as sent and explained on a table whose
  // rows make each of them selective.
  it("have no index on the events or rejections tables that none of the relay store's reads uses", async () => {
    const url = await freshDatabase()
    unwrap(await migratePostgresUrl(url))
    const sent: { text: string; values: unknown[] }[] = []
    const pool = new pg.Pool({ connectionString: url, max: 1 })
    const query = pool.query.bind(pool) as (text: string, values?: unknown[]) => Promise<pg.QueryResult>
    pool.query = ((text: string, values: unknown[] = []) => {
      sent.push({ text, values })
      return query(text, values)
    }) as typeof pool.query
    const client = new pg.Client(url)
    await client.connect()
    try {
      // 20,000 events, one in a thousand a card event (a group and type of its own), random ids and data ids.
      await client.query(`
        INSERT INTO events (id, type, grp, created_at, created_ms, received_at, last_delivery_at, endpoint, data_id, body, data)
        SELECT 'evt_' || md5(i::text), CASE WHEN i % 1000 = 0 THEN 'card.updated' ELSE 'funding.completed' END,
               CASE WHEN i % 1000 = 0 THEN 'cards' ELSE 'payments' END, '2026-11-01T00:00:00Z', i,
               1000000 + i, 1000000 + i, 'wh_main', 'fund_' || md5((i * 7)::text), '\\x7b7d', '{}'
        FROM generate_series(1, 20000) i;
        INSERT INTO webhook_rejections (at, path, status, reason, size, remote)
        SELECT i, '/webhooks', 401, 'bad signature', 10, '127.0.0.1' FROM generate_series(1, 2000) i;
        ANALYZE events; ANALYZE webhook_rejections`)
      const { rows: some } = await client.query<{ id: string; data_id: string; txid: string; seq: string }>(
        'SELECT id, data_id, txid::text, seq::text FROM events WHERE seq = 10000',
      )
      const row = some[0]!
      const reads = postgresReads(pool)
      await reads.list({}, undefined, 50)
      await reads.list({}, { receivedAt: 1_010_000, seq: 10_000 }, 50)
      await reads.list({ groups: ['cards'] }, undefined, 50)
      await reads.list({ types: ['card.updated'] }, undefined, 50)
      await reads.list({ from: 1_005_000, to: 1_005_100 }, undefined, 50)
      await reads.list({ search: row.data_id.slice(0, 12) }, undefined, 50)
      await reads.get(row.id)
      await reads.readAfter('0', 100, true)
      await reads.readAfter(`${row.txid}.${row.seq}`, 100)
      await reads.positionFacts(`${row.txid}.${row.seq}`)
      await reads.positionOfNewest([row.id])
      await reads.recentRejections(50)
      await postgresRetentionTarget(pool).prune('events', 1_000_100, 10)
      await postgresRetentionTarget(pool).prune('rejections', 100, 10)

      const used = new Set<string>()
      const collect = (node: unknown): void => {
        if (Array.isArray(node)) node.forEach(collect)
        else if (node && typeof node === 'object')
          for (const [key, value] of Object.entries(node)) {
            if (key === 'Index Name') used.add(String(value))
            else collect(value)
          }
      }
      for (const { text, values } of sent)
        collect((await client.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows)
      const { rows: indexes } = await client.query<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE tablename IN ('events', 'webhook_rejections') ORDER BY indexname`,
      )
      expect(indexes.map((i) => i.indexname).filter((name) => !used.has(name))).toEqual([])
    } finally {
      await client.end()
      await pool.end()
    }
  })
})
