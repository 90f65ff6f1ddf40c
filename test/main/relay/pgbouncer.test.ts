import { existsSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRelayToken, hashToken } from '../../../src/main/relay'
import { migratePostgres, pgMigrations } from '../../../src/main/relay/pg-migrations'
import { unwrap } from '../../../src/shared/result'
import { startPgBouncer } from '../../support/pgbouncer'
import type { Bouncer } from '../../support/pgbouncer'
import { usePostgres } from '../../support/postgres'
import { useRelayProcesses } from '../../support/relay-process'
import { runMain } from '../../support/cli'
import { repoRoot } from '../../support/serve-process'
import { waitFor } from '../../support/wait'
import { deliver, getJson, relaySecret, useRelays } from './helpers'

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client(url)
  await client.connect()
  try {
    return (await client.query<T>(sql)).rows
  } finally {
    await client.end()
  }
}

/** PostgreSQL as teams run it: PgBouncer in transaction pooling in front, and a relay role with
 * only the rights a running relay needs (issue 20). */
describe('relays behind PgBouncer in transaction mode', () => {
  const postgres = usePostgres()
  const relays = useRelays()
  const spawnRelay = useRelayProcesses()
  let bouncer: Bouncer
  let n = 0
  /** A new database's name as the cluster knows it (usePostgres may make it unique in the run). */
  const freshDatabase = async () =>
    new URL(await postgres().createDatabase(`bounced_${++n}`)).pathname.slice(1)
  beforeAll(async () => {
    expect(existsSync(join(repoRoot, 'out/main/cli.js')), 'the built bundle (npm run build)').toBe(true)
    bouncer = await startPgBouncer(postgres().port, ['postgres', 'relay_rw'])
  })
  afterAll(async () => {
    await bouncer?.stop()
  })

  it('start two relays at once: both running, one set of migrations, no advisory lock left held', async () => {
    const database = await freshDatabase()
    const env = { WATCHDESK_WEBHOOK_SECRETS: relaySecret }
    // Two race for the migration lock as six did (each relay process costs about a second of CPU;
    // a race needs two).
    const started = Array.from({ length: 2 }, () => spawnRelay(bouncer.urlFor(database), env))
    const running = await Promise.all(started.map((s) => s.ready))
    expect(running).toHaveLength(2)
    const direct = postgres().url.replace(/\/postgres$/, `/${database}`)
    const steps = await query<{ version: number }>(direct, 'SELECT version FROM schema_migrations ORDER BY 1')
    expect(steps.map((s) => s.version)).toEqual(pgMigrations.map((m) => m.version))
    expect(
      await query(
        direct,
        "SELECT * FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      ),
    ).toEqual([])
    // Every one says how its streams are woken: LISTEN/NOTIFY does not cross PgBouncer's pool.
    for (const r of running) expect(r.output()).toMatch(/^wake-ups: polling every \d+ ms/m)
    const health = await getJson(`${running[0]!.sync}/healthz`)
    expect(health.body.wakeups).toMatchObject({ mode: 'poll' })
    // And each one takes deliveries.
    const statuses = await Promise.all(running.map((r, i) => deliver(r.webhooks, `evt_six_${i}`)))
    expect(statuses).toEqual([200, 200])
  })

  it('store the same ids posted to two relays through PgBouncer once each; a follower of one sees the other’s', async () => {
    const database = await freshDatabase()
    const url = bouncer.urlFor(database)
    const [a, b] = [await relays.postgresStore(url), await relays.postgresStore(url)]
    expect(a.wakeups().mode).toBe('poll')
    // Straight to PostgreSQL the probe arrives: LISTEN/NOTIFY carries the wake-ups.
    const direct = postgres().url.replace(/\/postgres$/, `/${database}`)
    expect((await relays.postgresStore(direct)).wakeups()).toEqual({
      mode: 'notify',
      detail: 'LISTEN/NOTIFY',
    })
    const [ra, rb] = [await relays.relay(a), await relays.relay(b)]
    const token = unwrap(await createRelayToken(b, 'follower'))
    const stream = await fetch(`${rb.syncUrl}/sync/stream?after=0`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const reader = stream.body!.getReader()
    // Each id to both at once: 60 pairs race for the same rows through the pool.
    const ids = Array.from({ length: 60 }, (_, i) => `evt_bounced_${String(i).padStart(3, '0')}`)
    const statuses = await Promise.all(
      ids.flatMap((id) => [
        deliver(`${ra.listenerUrl}/webhooks`, id),
        deliver(`${rb.listenerUrl}/webhooks`, id),
      ]),
    )
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    const [counts] = await query(
      direct,
      'SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids, sum(deliveries)::int AS deliveries FROM events',
    )
    expect(counts).toEqual({ n: 60, ids: 60, deliveries: 120 })
    // Relay b's stream hears of what relay a stored, by polling (no notification crosses).
    const late = 'evt_bounced_late'
    expect(await deliver(`${ra.listenerUrl}/webhooks`, late)).toBe(200)
    let text = ''
    const decoder = new TextDecoder()
    await waitFor(
      async () => {
        const chunk = await reader.read()
        if (chunk.value) text += decoder.decode(chunk.value)
        return text.includes(late) || chunk.done
      },
      'the follower of relay b to receive an event relay a stored',
      { timeoutMs: 15_000 },
    )
    expect(text).toContain(late)
    await reader.cancel()
  })

  it('run a relay with a role that may only read and write rows, on a schema the owner migrated with relay migrate', async () => {
    const database = await freshDatabase()
    const cluster = postgres()
    await cluster.sql(
      'postgres',
      'DO $$ BEGIN CREATE ROLE relay_rw LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$',
    )
    await cluster.sql(database, 'REVOKE CREATE ON SCHEMA public FROM PUBLIC')
    const asRelayRole = bouncer.urlFor(database, 'relay_rw')
    const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: relaySecret }
    // Before the owner migrated: the relay role cannot create tables, and is told what to run.
    const refused = spawnRelay(asRelayRole, env)
    await expect(refused.ready).rejects.toThrow(/exited \(3\)/)
    expect(refused.output()).toMatch(/watchdesk relay migrate --store postgres:\/\/OWNER@/)

    // The commands below through main() in this process (runMain): the process start is proven by
    // the refused relay above and by the relays of the first test.
    const migrated = await runMain(['relay', 'migrate', '--store', bouncer.urlFor(database)], env)
    const latest = pgMigrations.at(-1)!.version
    expect(migrated.stdout).toContain(
      `applied ${pgMigrations.length} schema step(s); the database is at version ${latest}`,
    )
    expect(migrated.code).toBe(0)
    const again = await runMain(['relay', 'migrate', '--store', bouncer.urlFor(database)], env)
    expect(again.stdout).toContain(`already at version ${latest}`)
    await cluster.sql(
      database,
      'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO relay_rw; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO relay_rw',
    )
    const relay = await relays.relay(await relays.postgresStore(asRelayRole))
    expect(await deliver(`${relay.listenerUrl}/webhooks`, 'evt_least_privilege')).toBe(200)
    const created = await runMain(['relay', 'token', 'create', 'console', '--store', asRelayRole], env)
    expect(created.code).toBe(0)
    const page = await getJson(`${relay.syncUrl}/sync/events?after=0`, created.stdout.trim())
    expect(page.body.events.map((e: { id: string }) => e.id)).toEqual(['evt_least_privilege'])
  })

  it('keep tokens made before scopes existed working, as read tokens, after the schema step', async () => {
    const database = await freshDatabase()
    const direct = postgres().url.replace(/\/postgres$/, `/${database}`)
    const client = new pg.Client(direct)
    await client.connect()
    try {
      await migratePostgres(client as unknown as pg.PoolClient, pgMigrations.slice(0, 1))
      await client.query('INSERT INTO relay_tokens (name, hash, created_at) VALUES ($1, $2, 1)', [
        'old-console',
        hashToken('wdr_made_before_scopes'),
      ])
    } finally {
      await client.end()
    }
    const store = await relays.postgresStore(bouncer.urlFor(database))
    expect(await store.tokens.list()).toMatchObject([{ name: 'old-console', scope: 'read' }])
    const relay = await relays.relay(store)
    expect((await getJson(`${relay.syncUrl}/sync/events?after=0`, 'wdr_made_before_scopes')).status).toBe(200)
    const metrics = await fetch(`${relay.syncUrl}/metrics`, {
      headers: { authorization: 'Bearer wdr_made_before_scopes' },
    })
    expect(metrics.status).toBe(200)
  })
})
