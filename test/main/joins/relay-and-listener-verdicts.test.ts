import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { deliver, relaySecret, useFollowingConsoles, useRelays } from '../relay/helpers'
import type { Backend } from '../../../src/main/backend'

/** A delivery the service makes now (created_at = now): a redelivery of it seconds later is no
 * rung of the retry ladder, so the only thing that can call the listener's arrival a replay is a
 * wrong idea of what came before it. */
const freshBody = (id: string) =>
  JSON.stringify({
    id,
    type: 'funding.completed',
    created_at: new Date().toISOString(),
    data: { id: `fund_${id}`, status: 'completed', amount: 10, currency: 'USD' },
  })

const replayAlerts = async (backend: Backend) => {
  await backend.services.alerts.idle()
  return unwrap(backend.services.alerts.log(100)).filter((r) => r.rule === 'webhook.replay_suspected')
}

/** The same event reaching one console through a relay's endpoint and through its own listener's
 * endpoint: two endpoints, two retry ladders. The relay's delivery is not an earlier 200 on the
 * listener's ladder, so the listener's first arrival is its `first`, never a suspected replay. */
describe('one event through a relay catch-up and the listener', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-join-verdicts-')
  const consoles = useFollowingConsoles()

  const start = async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    const backend = await consoles({
      dataDir: tempDir(),
      config: { sources: { office: { url: relay.syncUrl } } },
      secrets: { 'source-token:office': token, 'webhook-secret:wh_relay': relaySecret },
    })
    const listener = `${backend.services.webhooks.address().url!}/webhooks`
    return { relay, backend, listener }
  }

  it('caught up first, then delivered to the listener: its first arrival there, no replay alert; the same delivery again at once is still a replay', async () => {
    const { relay, backend, listener } = await start()
    const id = 'evt_join_relay_first'
    const body = freshBody(id)
    expect(await deliver(`${relay.listenerUrl}/webhooks`, id, body)).toBe(200)
    const local = backend.services.webhooks.store
    await waitFor(() => local.get(id), 'the event caught up from the relay', { timeoutMs: 30_000 })

    expect(await deliver(listener, id, body)).toBe(200)
    expect(local.get(id)?.deliveries).toBe(2)
    const detail = unwrap(await backend.handlers['events.get']({ id }))
    expect(detail.arrivals!.map((a) => a.verdict)).toEqual(['first'])
    expect(detail.arrivals![0]!.reason).toContain('office')
    expect(await replayAlerts(backend)).toEqual([])
    expect(backend.services.replay.status()).toMatchObject({ suspected: 0, lastDay: 0 })

    // The listener's ladder is still watched: the same delivery again at once is a replay, alerted.
    expect(await deliver(listener, id, body)).toBe(200)
    const again = unwrap(await backend.handlers['events.get']({ id }))
    expect(again.arrivals!.map((a) => a.verdict)).toEqual(['first', 'suspected_replay'])
    const alerts = await waitFor(async () => {
      const found = await replayAlerts(backend)
      return found.length > 0 && found
    }, 'the replay alert')
    expect(alerts.map((a) => a.subject)).toEqual([`event:${id}`])
  })

  it('delivered to the listener first, then caught up: still one first arrival, no replay alert', async () => {
    const { relay, backend, listener } = await start()
    const id = 'evt_join_listener_first'
    const body = freshBody(id)
    expect(await deliver(listener, id, body)).toBe(200)
    expect(await deliver(`${relay.listenerUrl}/webhooks`, id, body)).toBe(200)
    const local = backend.services.webhooks.store
    await waitFor(() => local.get(id)?.deliveries === 2, 'the relay copy counted as a delivery', {
      timeoutMs: 30_000,
    })
    const detail = unwrap(await backend.handlers['events.get']({ id }))
    expect(detail.arrivals!.map((a) => a.verdict)).toEqual(['first'])
    expect(await replayAlerts(backend)).toEqual([])
  })
})
