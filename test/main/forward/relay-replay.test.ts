import { describe, expect, it } from 'vitest'
import type { ForwardService } from '../../../src/main/forward'
import { signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import { waitFor } from '../../support/wait'
import { envelope, post, secretA, useWebhookBackend } from '../webhooks/helpers'
import { signatureValid, useTestTargets } from './target'

const signed = (body: string) => ({ 'x-service-signature': signBody(secretA, body) })

/** Lengthens the authorization budget by a minute for this back end, through relayAuthorization's
 * own `elapsedMs` (the budget is what remains of forward.authorizationBudgetMs after it). The
 * config caps the budget at 1.9 s (the service waits 2 s); on a loaded machine the commit and the
 * round trip to a target that answers at once took longer, and the service got the fallback where
 * these tests expect the target's answer. Which target answers, and what, is unchanged. */
function withPatientBudget<T extends { services: { forward: ForwardService } }>(backend: T): T {
  const forward = backend.services.forward
  const relay = forward.relayAuthorization
  forward.relayAuthorization = (seq, elapsedMs = 0) => relay(seq, elapsedMs - 60_000)
  return backend
}

describe('card.authorization.request relay', () => {
  const startBackend = useWebhookBackend()
  const startTarget = useTestTargets()

  it("answers the service with the target's status and body when it answers within the budget", async () => {
    const app = await startTarget(() => ({ status: 200, body: '{"approved":false,"reason":"limit"}' }))
    const backend = withPatientBudget(
      await startBackend({
        config: {
          listener: { authorizationAnswer: { approved: true } },
          forward: { targets: { app: { url: app.url, events: ['card.*'] } } },
        },
      }),
    )
    const body = envelope('evt_auth_1', 'card.authorization.request', { id: 'auth_1', amount: 12 })
    const answer = await post(backend.webhookUrl, body, signed(body))
    expect(answer).toEqual({ status: 200, body: '{"approved":false,"reason":"limit"}' })
    expect(app.received).toHaveLength(1)
    expect(signatureValid(app.received[0]!, secretA)).toBe(true)
    const detail = await waitFor(() => {
      const d = unwrap(backend.services.forward.event('evt_auth_1'))
      return d.attempts.length === 1 && d
    }, 'the relay attempt recorded')
    expect(detail.forwards[0]).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 200 })
  })

  it("with two targets, answers with the authorizer's 200 although the other answers 500, which gets the event once", async () => {
    const audit = await startTarget(() => ({ status: 500, body: '{"error":"audit down"}' }))
    const app = await startTarget(() => ({ status: 200, body: '{"approved":true,"by":"app"}' }))
    const backend = withPatientBudget(
      await startBackend({
        config: {
          listener: { authorizationAnswer: { approved: false, source: 'fallback' } },
          forward: {
            // The broken audit target comes first by name and in the file.
            targets: { 'a-audit': { url: audit.url }, 'z-app': { url: app.url, events: ['card.*'] } },
            authorizationTarget: 'z-app',
          },
        },
      }),
    )
    expect(backend.services.forward.status()).toMatchObject({
      authorizationTarget: 'z-app',
      authorizationWarning: null,
    })
    const body = envelope('evt_auth_two', 'card.authorization.request', { id: 'auth_two' })
    expect(await post(backend.webhookUrl, body, signed(body))).toEqual({
      status: 200,
      body: '{"approved":true,"by":"app"}',
    })
    // The notified target's row is final (gave up after its one attempt): nothing retries it.
    const detail = await waitFor(() => {
      const d = unwrap(backend.services.forward.event('evt_auth_two'))
      return (
        d.forwards.every((f) => f.state !== 'pending' && f.attempts === 1) && d.attempts.length === 2 && d
      )
    }, 'both attempts recorded')
    const byTarget = Object.fromEntries(detail.forwards.map((f) => [f.target, f]))
    expect(byTarget['z-app']).toMatchObject({ state: 'delivered', lastStatus: 200 })
    expect(byTarget['a-audit']).toMatchObject({ state: 'gave_up', attempts: 1, lastStatus: 500 })
    expect(byTarget['a-audit']!.lastError).toMatch(/sent to a notified target once, never retried/)
    expect(audit.received.map((r) => r.id)).toEqual(['evt_auth_two'])
    expect(app.received.map((r) => r.id)).toEqual(['evt_auth_two'])
  })

  it('without forward.authorizationTarget, the first subscribed target in the config answers, with a warning', async () => {
    const audit = await startTarget(() => ({ status: 500 }))
    const app = await startTarget(() => ({ status: 200, body: '{"approved":true}' }))
    const backend = withPatientBudget(
      await startBackend({
        config: { forward: { targets: { 'z-app': { url: app.url }, 'a-audit': { url: audit.url } } } },
      }),
    )
    const status = backend.services.forward.status()
    expect(status.authorizationTarget).toBe('z-app')
    expect(status.authorizationWarning).toMatch(
      /2 targets subscribe to card.authorization.request \(z-app, a-audit\)/,
    )
    const body = envelope('evt_auth_first', 'card.authorization.request', { id: 'auth_first' })
    expect(await post(backend.webhookUrl, body, signed(body))).toEqual({
      status: 200,
      body: '{"approved":true}',
    })
    await waitFor(
      () => audit.received.some((r) => r.id === 'evt_auth_first') || undefined,
      'the notification',
    )
  })

  it('answers the fallback at the budget, before a target that sleeps 5 s answers, and records the late answer', async () => {
    const app = await startTarget(() => ({ status: 200, body: '{"approved":false}', delayMs: 5000 }))
    const backend = await startBackend({
      config: {
        listener: { authorizationAnswer: { approved: true, source: 'fallback' } },
        forward: { targets: { app: { url: app.url } } },
      },
    })
    const body = envelope('evt_auth_2', 'card.authorization.request', { id: 'auth_2' })
    const started = Date.now()
    const answer = await post(backend.webhookUrl, body, signed(body))
    const elapsed = Date.now() - started
    expect(answer).toEqual({ status: 200, body: '{"approved":true,"source":"fallback"}' })
    // Not before the budget (1,500 ms by default), and before the target's answer: an upper bound
    // in milliseconds flaked on a loaded machine, the order of the two answers does not.
    expect(elapsed).toBeGreaterThanOrEqual(1500)
    expect(unwrap(backend.services.forward.event('evt_auth_2')).attempts).toEqual([])
    expect(app.acknowledged.has('evt_auth_2')).toBe(false)
    const detail = await waitFor(
      () => {
        const d = unwrap(backend.services.forward.event('evt_auth_2'))
        return d.attempts.length === 1 && d
      },
      'the late answer recorded',
      { timeoutMs: 10_000 },
    )
    expect(detail.attempts[0]!.status).toBe(200)
    expect(detail.attempts[0]!.error).toMatch(
      /^answered after the \d+ ms authorization budget: the listener sent the fallback answer$/,
    )
    expect(detail.attempts[0]!.latencyMs).toBeGreaterThanOrEqual(5000)
    expect(backend.services.webhooks.status().authorizationLatency.count).toBe(1)
  }, 20_000)
})

describe('replay', () => {
  const startBackend = useWebhookBackend()
  const startTarget = useTestTargets()
  // The tests that take the default config share one back end (a start costs about a second of
  // CPU); each stores and replays ids of its own to a target of its own.
  const startDefaultBackend = useWebhookBackend({ per: 'file' })
  let defaultBackend: ReturnType<typeof startDefaultBackend> | undefined
  const sharedBackend = () => (defaultBackend ??= startDefaultBackend())

  async function stored(
    backend: Awaited<ReturnType<ReturnType<typeof useWebhookBackend>>>,
    ids: [string, string][],
  ) {
    for (const [id, type] of ids) {
      const body = envelope(id, type)
      expect((await post(backend.webhookUrl, body, signed(body))).status).toBe(200)
    }
  }

  it('sends one stored event again to a URL, through the outbox, with its original signature', async () => {
    const app = await startTarget()
    const backend = await sharedBackend()
    await stored(backend, [
      ['evt_r1', 'funding.completed'],
      ['evt_r2', 'payout.completed'],
    ])
    expect(
      unwrap(backend.services.forward.replay({ ids: ['evt_r2'], destination: { url: app.url } })),
    ).toEqual({
      queued: 1,
      target: `url:${app.url}`,
    })
    await waitFor(() => app.acknowledged.has('evt_r2'), 'the replay at the target')
    expect(app.received.map((r) => r.id)).toEqual(['evt_r2'])
    expect(app.received[0]!.headers['x-watchdesk-replay']).toBe('1')
    expect(signatureValid(app.received[0]!, secretA)).toBe(true)
    await waitFor(() => unwrap(backend.services.forward.event('evt_r2')).attempts.length === 1, 'recorded')
  })

  it('sends a filtered set (type and time) to a configured target', async () => {
    const app = await startTarget()
    const late = await startTarget()
    const backend = await startBackend({
      config: { forward: { targets: { app: { url: app.url, events: ['report.ready'] } } } },
    })
    await stored(backend, [
      ['evt_f1', 'funding.completed'],
      ['evt_f2', 'card.created'],
      ['evt_f3', 'funding.failed'],
    ])
    const result = backend.services.forward.replay({
      filter: { types: ['funding.completed', 'funding.failed'], from: 0 },
      destination: { target: 'app' },
    })
    expect(unwrap(result)).toEqual({ queued: 2, target: 'app' })
    await waitFor(() => app.acknowledged.size === 2, 'two replays at the target')
    expect([...app.acknowledged].sort()).toEqual(['evt_f1', 'evt_f3'])
    // A filter whose time range matches nothing queues nothing.
    expect(
      unwrap(backend.services.forward.replay({ filter: { to: 1 }, destination: { url: late.url } })).queued,
    ).toBe(0)
    expect(
      backend.services.forward.replay({ ids: ['evt_f1'], destination: { target: 'nope' } }),
    ).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
  })

  it('sends an edited payload once, marked as edited, unsigned without a target secret', async () => {
    const app = await startTarget()
    const backend = await sharedBackend()
    await stored(backend, [['evt_e1', 'funding.completed']])
    const edited = JSON.stringify({
      id: 'evt_e1',
      type: 'funding.completed',
      created_at: 'x',
      data: { amount: 5 },
    })
    expect(unwrap(backend.services.forward.replayEdited('evt_e1', edited, { url: app.url })).queued).toBe(1)
    await waitFor(() => app.acknowledged.has('evt_e1'), 'the edited replay at the target')
    expect(app.received[0]!.body.toString()).toBe(edited)
    expect(app.received[0]!.headers['x-watchdesk-edited']).toBe('1')
    expect(app.received[0]!.headers['x-service-signature']).toBeUndefined()
    const detail = await waitFor(() => {
      const d = unwrap(backend.services.forward.event('evt_e1'))
      return d.attempts.length === 1 && d
    }, 'recorded')
    expect(detail.attempts[0]!.edited).toBe(true)
    expect(detail.forwards[0]!.edited).toBe(true)
  })
})
