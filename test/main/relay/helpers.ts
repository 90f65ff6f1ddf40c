import { request } from 'node:http'
import { Agent } from 'node:http'
import { afterAll, afterEach, expect } from 'vitest'
import type { EventParams } from '../../../src/main/webhooks/sql'
import { silentLogger } from '../../../src/main/log'
import { openPostgresStore } from '../../../src/main/relay/pg-store'
import type { PgStoreOptions } from '../../../src/main/relay/pg-store'
import type { SyncServerSettings } from '../../../src/main/relay/sync-server'
import { openSqliteRelayStore, startRelay } from '../../../src/main/relay'
import type { RelayStore, RunningRelay } from '../../../src/main/relay'
import { createMemoryStore, observeSecrets } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import type { Backend } from '../../../src/main/backend'
import { startFollowingConsole } from '../../support/following-console'

export const relaySecret = 'whsec_relay_test_5f1e9c2b7a'

const agent = new Agent({ keepAlive: true, maxSockets: 64 })

export function envelopeBody(
  id: string,
  type = 'funding.completed',
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    id,
    type,
    created_at: '2025-01-01T00:00:00Z',
    data: { id: `fund_${id}`, status: 'completed', amount: 10, currency: 'USD', ...extra },
  })
}

export function params(id: string, extra: Record<string, unknown> = {}): EventParams {
  const body = envelopeBody(id, 'funding.completed', extra)
  return {
    id,
    type: 'funding.completed',
    grp: 'payments',
    created_at: '2025-01-01T00:00:00Z',
    created_ms: Date.parse('2025-01-01T00:00:00Z'),
    at: Date.now(),
    endpoint: 'wh_relay',
    data_id: `fund_${id}`,
    body: Buffer.from(body),
    data: JSON.stringify(JSON.parse(body).data),
  }
}

/** Commits `count` events straight into a relay store, 1,000 per transaction. */
export async function fill(
  store: RelayStore,
  prefix: string,
  count: number,
  extra: Record<string, unknown> = {},
): Promise<void> {
  for (let i = 0; i < count; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - i) }, (_, j) =>
      params(`${prefix}_${String(i + j).padStart(6, '0')}`, extra),
    )
    const result = await store.committer.commit(batch, [])
    expect(result.ok).toBe(true)
  }
}

/** Posts one signed delivery; resolves with the status (0 when the connection failed). */
export async function deliver(
  webhookUrl: string,
  id: string,
  body = envelopeBody(id),
  options: { newConnection?: boolean } = {},
): Promise<number> {
  return (await deliverAnswer(webhookUrl, id, body, options)).status
}

/** Posts one signed delivery; resolves with the status (0 when the connection failed) and the
 * answer's body. Over a kept-alive connection, unless `newConnection` (a sender's first request,
 * which the relay must still be able to accept). */
export function deliverAnswer(
  webhookUrl: string,
  id: string,
  body = envelopeBody(id),
  { newConnection = false }: { newConnection?: boolean } = {},
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(
      webhookUrl,
      {
        method: 'POST',
        agent: newConnection ? false : agent,
        headers: { 'content-type': 'application/json', 'x-service-signature': signBody(relaySecret, body) },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      },
    )
    req.on('error', () => resolve({ status: 0, text: '' }))
    req.end(body)
  })
}

export async function getJson(url: string, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  return { status: res.status, body: await res.json() }
}

/** Relays and stores opened by a test, all closed after it (with `{ per: 'file' }`, after the
 * file's last test, for what `beforeAll` opened). */
export function useRelays({ per = 'test' }: { per?: 'test' | 'file' } = {}) {
  const opened: { relay?: RunningRelay; store: RelayStore }[] = []
  ;(per === 'test' ? afterEach : afterAll)(async () => {
    for (const o of opened.splice(0).reverse()) {
      await o.relay?.stop()
      await o.store.close()
    }
  })
  return {
    async postgresStore(url: string, options: PgStoreOptions = {}): Promise<RelayStore> {
      const store = unwrap(await openPostgresStore(url, options))
      opened.push({ store })
      return store
    },
    /** A relay's embedded store: a SQLite file (no PostgreSQL needed). */
    sqliteStore(file: string): RelayStore {
      const store = unwrap(openSqliteRelayStore(file, { log: silentLogger }))
      opened.push({ store })
      return store
    },
    async relay(store: RelayStore, sync: Partial<SyncServerSettings> = {}): Promise<RunningRelay> {
      const relay = unwrap(
        await startRelay({
          store,
          secrets: observeSecrets(createMemoryStore({ 'webhook-secret:wh_relay': relaySecret })),
          log: silentLogger,
          listener: { host: '127.0.0.1', port: 0 },
          sync: { host: '127.0.0.1', port: 0, ...sync },
        }),
      )
      // A test may stop a relay itself (an outage); stopping it again after the test is a no-op.
      let stopped: Promise<void> | null = null
      const once: RunningRelay = { ...relay, stop: () => (stopped ??= relay.stop()) }
      opened.push({ relay: once, store: { close: async () => {} } as RelayStore })
      return once
    },
  }
}

/** Consoles following relays (test/support/following-console.ts), closed after each test unless
 * the test closed one itself with `close`. */
export function useFollowingConsoles() {
  const running: Backend[] = []
  afterEach(async () => {
    for (const b of running.splice(0)) await b.close()
  })
  const start = async (options: Parameters<typeof startFollowingConsole>[0]) => {
    const backend = await startFollowingConsole(options)
    running.push(backend)
    return backend
  }
  const close = async (backend: Backend) => {
    running.splice(running.indexOf(backend), 1)
    await backend.close()
  }
  return Object.assign(start, { close })
}
