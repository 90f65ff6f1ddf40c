import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { signatureValid, useTestTargets } from '../forward/target'
import { deliver, relaySecret, useFollowingConsoles, useRelays } from './helpers'

/** Sources and forwarding composed: an event synced from a relay goes through the same outbox as
 * one the console's own listener received (SQLite relay store, a real HTTP target on loopback). */
describe('forwarding events synced from a relay', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-sources-forward-')
  const targets = useTestTargets()
  const consoles = useFollowingConsoles()

  it('forwards a synced event like a local one, and an event received both ways only once', async () => {
    const target = await targets()
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    const dataDir = tempDir()
    const backend = await consoles({
      dataDir,
      config: {
        sources: { office: { url: relay.syncUrl } },
        forward: { targets: { app: { url: target.url } } },
      },
      secrets: { 'source-token:office': token, 'webhook-secret:wh_relay': relaySecret },
    })
    await waitFor(() => backend.services.sources.list()[0]?.state === 'live' || undefined, 'the source live')

    // evt_both reaches the console's own listener first, then comes again through the relay.
    expect(await deliver(`${backend.services.webhooks.address().url}/webhooks`, 'evt_both')).toBe(200)
    expect(await deliver(`${relay.listenerUrl}/webhooks`, 'evt_both')).toBe(200)
    expect(await deliver(`${relay.listenerUrl}/webhooks`, 'evt_synced')).toBe(200)

    const local = backend.services.webhooks.store
    await waitFor(
      () => (local.get('evt_synced') && local.get('evt_both')?.deliveries === 2) || undefined,
      'both events stored, evt_both delivered twice',
    )
    expect(local.get('evt_synced')).toMatchObject({ source: 'office', deliveries: 1 })
    // The outbox row is written in the event's own transaction: nothing more can be queued now.
    const outbox = backend.context.db
      .prepare(
        'SELECT e.id, o.target FROM forward_outbox o JOIN events e ON e.seq = o.event_seq ORDER BY e.id',
      )
      .all()
    expect(outbox).toEqual([
      { id: 'evt_both', target: 'app' },
      { id: 'evt_synced', target: 'app' },
    ])
    await waitFor(
      () => (target.acknowledged.has('evt_both') && target.acknowledged.has('evt_synced')) || undefined,
      'both events forwarded',
    )
    // The worker counts a delivery before its outbox row is marked delivered: wait for both.
    await waitFor(() => {
      const app = backend.services.forward.status().targets[0]
      return (app?.delivered === 2 && app.pending === 0 && app.failing === 0) || undefined
    }, 'two deliveries counted and nothing queued')
    expect(target.received.map((r) => r.id).sort()).toEqual(['evt_both', 'evt_synced'])
    // The synced event carries the service's original signature, recomputed with the local secret.
    const synced = target.received.find((r) => r.id === 'evt_synced')!
    expect(signatureValid(synced, relaySecret)).toBe(true)
    expect(synced.headers['x-watchdesk-target']).toBe('app')
  })
})
