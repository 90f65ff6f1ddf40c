import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { waitFor } from '../../support/wait'
import { createRelayToken } from '../../../src/main/relay'
import { deliver, deliverAnswer, getJson, useRelays } from './helpers'

describe('a relay whose PostgreSQL stalls', () => {
  // Its own cluster: the first test freezes the server.
  const postgres = usePostgres({ own: true })
  const relays = useRelays()

  it('answers 503 within the commit deadline while PostgreSQL is frozen, says "stalled" (/healthz not ok), and recovers by itself after SIGCONT with every acknowledged id stored', async () => {
    const deadlineMs = 1_500
    const url = await postgres().createDatabase('frozen')
    const store = await relays.postgresStore(url, { commitDeadlineMs: deadlineMs })
    const relay = await relays.relay(store)
    const webhooks = `${relay.listenerUrl}/webhooks`
    const acknowledged: string[] = []
    const post = async (id: string) => {
      const answer = await deliverAnswer(webhooks, id)
      if (answer.status === 200) acknowledged.push(id)
      return answer
    }
    for (const id of ['evt_f1', 'evt_f2', 'evt_f3']) expect((await post(id)).status).toBe(200)
    expect((await fetch(`${relay.syncUrl}/healthz`)).status).toBe(200)

    const during = Array.from({ length: 30 }, (_, i) => `evt_frozen_${i}`)
    postgres().freeze()
    try {
      const started = performance.now()
      const answers = await Promise.all(during.map(post))
      const elapsed = performance.now() - started
      expect(answers.map((a) => a.status)).toEqual(during.map(() => 503))
      // The deadline, not the sender's own time-out, ends the wait (slack for a loaded machine).
      expect(elapsed).toBeLessThan(deadlineMs + 4_000)
      expect(answers[0]!.text).toMatch(/PostgreSQL did not commit within 1500 ms/)
      // The status answers while the store is frozen (it says so rather than waiting on it).
      const status = await relay.status()
      expect(status.storage.state).toBe('stalled')
      expect(status.storage.cause).toMatch(/^PostgreSQL at postgres:\/\/.* is stalled/)
      expect(status.storage.fix).toMatch(/frozen or overloaded/)
      const health = await fetch(`${relay.syncUrl}/healthz`)
      expect(health.status).toBe(503)
      expect(await health.json()).toMatchObject({ ok: false, storage: 'stalled' })
    } finally {
      postgres().thaw()
    }

    // By itself: the probe commits once PostgreSQL runs again, no delivery needed.
    await waitFor(
      async () => (await relay.status()).storage.state === 'ok' || undefined,
      'storage ok again after SIGCONT',
      { timeoutMs: 15_000 },
    )
    expect((await fetch(`${relay.syncUrl}/healthz`)).status).toBe(200)
    // The service redelivers what was answered 503.
    for (const id of during) expect((await post(id)).status).toBe(200)
    const stored = new Set(unwrap(await store.readAfter('0', 1000)).events.map((e) => e.id))
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([])
    expect(stored.size).toBe(33)
  })

  it('answers 503 for the one event whose row another session holds locked, and 200 for every other id meanwhile', async () => {
    const url = await postgres().createDatabase('locked')
    const store = await relays.postgresStore(url, { commitDeadlineMs: 4_000 })
    const relay = await relays.relay(store)
    const webhooks = `${relay.listenerUrl}/webhooks`
    expect(await deliver(webhooks, 'evt_locked')).toBe(200)
    const locker = new pg.Client(url)
    await locker.connect()
    try {
      await locker.query('BEGIN')
      await locker.query(`SELECT id FROM events WHERE id = 'evt_locked' FOR UPDATE`)
      const others = Array.from({ length: 40 }, (_, i) => `evt_free_${i}`)
      // The redelivery of the locked id arrives with the others (same batches).
      const [locked, ...rest] = await Promise.all([
        deliverAnswer(webhooks, 'evt_locked'),
        ...others.map((id) => deliver(webhooks, id)),
      ])
      expect(rest).toEqual(others.map(() => 200))
      expect(locked.status).toBe(503)
      expect(locked.text).toMatch(/locked by another database session/)
      // One row locked is not a store fault.
      expect((await relay.status()).storage.state).toBe('ok')
      expect(await deliver(webhooks, 'evt_free_after')).toBe(200)
    } finally {
      await locker.query('ROLLBACK')
      await locker.end()
    }
    expect(await deliver(webhooks, 'evt_locked')).toBe(200)
    const page = unwrap(await store.readAfter('0', 100))
    expect(page.events.find((e) => e.id === 'evt_locked')?.deliveries).toBe(2)
    expect(page.events).toHaveLength(42)
  })

  it('keeps committing deliveries while every read connection waits (sync reads have a pool of their own)', async () => {
    const url = await postgres().createDatabase('pools')
    const store = await relays.postgresStore(url, { readConnections: 4 })
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'ops'))
    const locker = new pg.Client(url)
    // Another session: pg_stat_activity is a snapshot for the length of the locker's transaction.
    const observer = new pg.Client(url)
    await Promise.all([locker.connect(), observer.connect()])
    const waiting = async () =>
      (
        await observer.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
        )
      ).rows[0]!.n
    try {
      // Every token check (a read) now waits for the lock: twelve requests take all four read
      // connections, and on one shared pool they would take the commits' connections too.
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE relay_tokens IN ACCESS EXCLUSIVE MODE')
      const reads = Array.from({ length: 12 }, () => getJson(`${relay.syncUrl}/sync/events?after=0`, token))
      await waitFor(async () => (await waiting()) >= 4 || undefined, 'four reads waiting for the lock')
      const ids = Array.from({ length: 20 }, (_, i) => `evt_pool_${i}`)
      expect(await Promise.all(ids.map((id) => deliver(`${relay.listenerUrl}/webhooks`, id)))).toEqual(
        ids.map(() => 200),
      )
      await locker.query('ROLLBACK')
      // The reads waited at most lock_timeout; each answered (200 or 503), none hangs.
      for (const r of await Promise.all(reads)) expect([200, 503]).toContain(r.status)
    } finally {
      await Promise.all([locker.end(), observer.end()])
    }
  })
})
