import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { waitFor } from '../../support/wait'
import { deliver, getJson, useRelays } from './helpers'

describe('a relay whose PostgreSQL goes away', () => {
  // Its own cluster: the test stops the server.
  const postgres = usePostgres({ own: true })
  const relays = useRelays()

  it('answers 503 and says why while the database is down, and takes deliveries again once it is back', async () => {
    const url = await postgres().createDatabase('outage')
    const store = await relays.postgresStore(url)
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'ops'))
    const webhooks = `${relay.listenerUrl}/webhooks`
    expect(await deliver(webhooks, 'evt_before')).toBe(200)

    postgres().stopServer()
    try {
      expect(await deliver(webhooks, 'evt_during')).toBe(503)
      const status = await relay.status()
      expect(status.storage.state).toBe('failing')
      expect(status.storage.cause).toMatch(/^PostgreSQL at postgres:\/\/.* cannot commit \(ECONNREFUSED/)
      expect(status.storage.fix).toMatch(/Check that PostgreSQL runs/)
      expect(status.unavailable).toBe(1)
      // The sync API says it cannot read, rather than answering an empty page as if nothing were new.
      expect((await getJson(`${relay.syncUrl}/sync/events?after=0`, token)).status).toBe(503)
    } finally {
      postgres().startServer()
    }

    // The service redelivers: once the database is back, the same delivery is stored.
    await waitFor(
      async () => (await deliver(webhooks, 'evt_during')) === 200 || undefined,
      'a 200 after the outage',
      {
        timeoutMs: 10_000,
        intervalMs: 200,
      },
    )
    await waitFor(async () => (await relay.status()).storage.state === 'ok' || undefined, 'storage ok again')
    const page = unwrap(await store.readAfter('0', 10))
    expect(page.events.map((e) => e.id)).toEqual(['evt_before', 'evt_during'])
  })
})
