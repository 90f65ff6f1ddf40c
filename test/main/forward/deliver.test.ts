import { Agent } from 'node:http'
import { describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { createMemoryStore } from '../../../src/main/secrets'
import { unwrap } from '../../../src/shared/result'
import { envelope, post, secretA, useWebhookBackend } from '../webhooks/helpers'
import { waitFor } from '../../support/wait'
import { signatureValid, useTestTargets } from './target'

const targetSecret = 'fwsec_app_local_7e1d2c'

/** Posts `count` signed events with `parallel` deliveries in flight; every one must get 200. */
async function load(url: string, count: number, type = (_i: number) => 'funding.completed', parallel = 32) {
  const agent = new Agent({ keepAlive: true, maxSockets: parallel })
  let next = 0
  const ids: string[] = []
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let i = next++; i < count; i = next++) {
        const id = `evt_load_${i}`
        const body = envelope(id, type(i))
        const answer = await post(url, body, { 'x-service-signature': signBody(secretA, body) })
        expect(answer.status).toBe(200)
        ids.push(id)
      }
    }),
  )
  agent.destroy()
  return ids
}

describe('forwarding to a target on loopback', () => {
  const startBackend = useWebhookBackend()
  const startTarget = useTestTargets()

  it('delivers every event of a 500-event load once, with the original signature', async () => {
    const target = await startTarget()
    const backend = await startBackend({ config: { forward: { targets: { app: { url: target.url } } } } })
    // 500 events, 32 in flight: four of the forwarder's lease batches (128 rows at the default
    // concurrency of 8) and many commit groups; more events repeat the same batches (2,000 did).
    const ids = await load(backend.webhookUrl, 500)
    await waitFor(() => target.acknowledged.size === 500, 'all 500 events at the target', {
      timeoutMs: 30_000,
    })
    expect(new Set(target.received.map((r) => r.id))).toEqual(new Set(ids))
    expect(target.received.every((r) => signatureValid(r, secretA))).toBe(true)
    const first = target.received[0]!
    expect(first.headers['content-type']).toBe('application/json')
    expect(first.headers['x-watchdesk-target']).toBe('app')
    expect(first.headers['x-watchdesk-attempt']).toBe('1')
    await waitFor(() => backend.services.forward.status().targets[0]!.pending === 0, 'the outbox drained')
    expect(backend.services.forward.status().targets[0]).toMatchObject({
      name: 'app',
      delivered: 500,
      pending: 0,
      failing: 0,
      health: 'ok',
      signing: 'original',
    })
  }, 60_000)

  it('re-signs every event with the target secret from the keychain', async () => {
    const target = await startTarget()
    const backend = await startBackend({
      config: { forward: { targets: { app: { url: target.url } } } },
      secrets: createMemoryStore({ 'webhook-secret:wh_alpha': secretA, 'forward-secret:app': targetSecret }),
    })
    // Signing does not change with load (the 500-event load is the test above): 200 events.
    const ids = await load(backend.webhookUrl, 200)
    await waitFor(() => target.acknowledged.size === 200, 'all 200 events at the target', {
      timeoutMs: 30_000,
    })
    expect(new Set(target.received.map((r) => r.id))).toEqual(new Set(ids))
    expect(target.received.every((r) => signatureValid(r, targetSecret))).toBe(true)
    expect(target.received.some((r) => signatureValid(r, secretA))).toBe(false)
    expect(backend.services.forward.status().targets[0]!.signing).toBe('target secret')
  }, 60_000)

  it('routes by event type: funding.* to one target, card.* to another', async () => {
    const funds = await startTarget()
    const cards = await startTarget()
    const backend = await startBackend({
      config: {
        forward: {
          targets: {
            funds: { url: funds.url, events: ['funding.*'] },
            cards: { url: cards.url, events: ['card.*'] },
          },
        },
      },
    })
    const types = ['funding.completed', 'card.created', 'funding.failed', 'payout.completed', 'card.frozen']
    await load(backend.webhookUrl, 5, (i) => types[i]!)
    await waitFor(() => funds.acknowledged.size === 2 && cards.acknowledged.size === 2, 'both targets served')
    expect([...funds.acknowledged].sort()).toEqual(['evt_load_0', 'evt_load_2'])
    expect([...cards.acknowledged].sort()).toEqual(['evt_load_1', 'evt_load_4'])
    // The payout matched no target: no outbox row, no forward state.
    expect(backend.services.forward.states(['evt_load_3'])).toEqual({})
    // Attempts are recorded in batches, so their state follows a moment later.
    await waitFor(
      () =>
        Object.keys(backend.services.forward.states(['evt_load_0', 'evt_load_1'])).length === 2 &&
        Object.values(backend.services.forward.states(['evt_load_0', 'evt_load_1'])).every(
          (s) => s === 'delivered',
        ),
      'both recorded as delivered',
    )
    expect(backend.services.forward.states(['evt_load_0', 'evt_load_1'])).toEqual({
      evt_load_0: 'delivered',
      evt_load_1: 'delivered',
    })
  })

  it('records each attempt with status, latency and the first 2 KB of the answer', async () => {
    const target = await startTarget(() => ({ status: 422, body: 'x'.repeat(5000) }))
    const backend = await startBackend({
      config: { forward: { targets: { app: { url: target.url, retrySchedule: [60_000] } } } },
    })
    await load(backend.webhookUrl, 1)
    const detail = await waitFor(() => {
      const d = unwrap(backend.services.forward.event('evt_load_0'))
      return d.attempts.length === 1 && d
    }, 'the attempt recorded')
    expect(detail.forwards).toEqual([
      expect.objectContaining({ target: 'app', state: 'failing', attempts: 1, lastStatus: 422 }),
    ])
    expect(detail.attempts[0]).toMatchObject({
      target: 'app',
      attempt: 1,
      status: 422,
      error: 'the target answered 422',
      edited: false,
    })
    expect(detail.attempts[0]!.response).toBe('x'.repeat(2048))
    expect(detail.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(0)
  })
})
