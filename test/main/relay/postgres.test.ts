import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import { pgMigrations } from '../../../src/main/relay/pg-migrations'
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
})
