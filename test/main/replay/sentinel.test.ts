import { afterEach, describe, expect, it, vi } from 'vitest'
import { startBackend as startRealBackend } from '../../../src/main/backend'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import { useTempDir } from '../../support/temp'
import { signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import { post, secretA, useWebhookBackend } from '../webhooks/helpers'
import type { TestBackend } from '../webhooks/helpers'
import { useTestTargets } from '../forward/target'
import { waitFor } from '../../support/wait'
import { promtoolCheckMetrics } from '../../support/promtool'

const t0 = Date.parse('2026-11-28T03:00:00Z')
const s = 1000
const min = 60 * s

const body = (id: string) =>
  JSON.stringify({
    id,
    type: 'funding.completed',
    created_at: new Date(t0).toISOString(),
    data: { id: `fund_${id}`, amount: '10.00' },
  })

/** Posts the same signed delivery with the listener's clock (Date) set to `at`. */
async function deliverAt(backend: TestBackend, id: string, at: number, headers: Record<string, string> = {}) {
  vi.setSystemTime(at)
  const text = body(id)
  const answer = await post(backend.webhookUrl, text, {
    'x-service-signature': signBody(secretA, text),
    ...headers,
  })
  expect(answer.status).toBe(200)
}

const replayAlerts = async (backend: TestBackend) => {
  await backend.services.alerts.idle()
  return unwrap(backend.services.alerts.log(100)).filter((r) => r.rule === 'webhook.replay_suspected')
}

const outboxRows = (backend: TestBackend, id: string) =>
  (
    backend.context.db
      .prepare(
        'SELECT count(*) AS n FROM forward_outbox o JOIN events e ON e.seq = o.event_seq WHERE e.id = ?',
      )
      .get(id) as { n: number }
  ).n

describe('the replay sentinel on a real listener (fake Date)', () => {
  const startBackend = useWebhookBackend()
  const startTarget = useTestTargets()
  // Only Date is faked: timers, the commit worker and the sockets run in real time.
  afterEach(() => vi.useRealTimers())

  it('calls a redelivery 5 s after a 200 a suspected replay: one alert naming the address, not forwarded', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: t0 })
    const target = await startTarget()
    const backend = await startBackend({ config: { forward: { targets: { app: { url: target.url } } } } })
    const before = await backend.metrics()
    expect(promtoolCheckMetrics(before)).toEqual({ code: 0, problems: '' })
    expect(before).toContain('watchdesk_webhook_redeliveries_total{verdict="suspected_replay"} 0')
    expect(before).toContain('watchdesk_webhook_redeliveries_total{verdict="retry"} 0')
    await deliverAt(backend, 'evt_replayed', t0 + 2 * s)
    await waitFor(() => target.acknowledged.has('evt_replayed'), 'the first delivery forwarded', {
      timeoutMs: 30_000,
    })
    await deliverAt(backend, 'evt_replayed', t0 + 7 * s, { 'x-forwarded-for': '198.51.100.23' })
    // And again: still one alert for the id.
    await deliverAt(backend, 'evt_replayed', t0 + 9 * s)

    const detail = unwrap(await backend.handlers['events.get']({ id: 'evt_replayed' }))
    expect(detail.arrivals!.map((a) => a.verdict)).toEqual(['first', 'suspected_replay', 'suspected_replay'])
    expect(detail.arrivals![1]).toMatchObject({
      remote: '198.51.100.23 via 127.0.0.1',
      reason: expect.stringContaining('arrived 5 s after the arrival at 03:00:02 UTC, answered 200'),
    })
    const alerts = await waitFor(async () => {
      const found = await replayAlerts(backend)
      return found.length > 0 && found
    }, 'the replay alert recorded')
    expect(alerts).toHaveLength(1)
    expect(alerts[0]!.title).toBe('Suspected replay of evt_replayed from 198.51.100.23 via 127.0.0.1')
    // The desktop channel's push carries the whole alert: the sentence with the fix.
    const pushed = backend.pushes.flatMap((p) =>
      p.topic === 'alerts.alert' && p.payload.rule === 'webhook.replay_suspected' ? [p.payload] : [],
    )
    expect(pushed).toHaveLength(1)
    expect(pushed[0]!.body).toContain('rotate the endpoint’s secret')
    // Never forwarded: only the first delivery was queued, and the target got it once.
    expect(outboxRows(backend, 'evt_replayed')).toBe(1)
    await backend.services.alerts.idle()
    expect(target.received.filter((r) => r.id === 'evt_replayed')).toHaveLength(1)
    expect(backend.services.replay.status()).toMatchObject({
      lastDay: 1,
      suspected: 2,
      retries: 0,
      recent: [{ id: 'evt_replayed', remote: '198.51.100.23 via 127.0.0.1' }],
    })
    expect(backend.pushes.some((p) => p.topic === 'replay.status')).toBe(true)
    const after = await backend.metrics()
    expect(promtoolCheckMetrics(after)).toEqual({ code: 0, problems: '' })
    expect(after).toContain('watchdesk_webhook_redeliveries_total{verdict="suspected_replay"} 2')
  }, 60_000)

  it('calls redeliveries on the retry ladder after failed attempts retries, with no alert', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: t0 })
    const backend = await startBackend()
    // The attempts at 0 and 1 min failed before reaching this listener; the 6 min one arrived and its
    // 200 was lost, then the service went on down the ladder.
    let at = t0 + 6 * min + 3 * s
    await deliverAt(backend, 'evt_retried', at)
    for (const delay of [30 * min, 2 * 60 * min, 24 * 60 * min])
      await deliverAt(backend, 'evt_retried', (at += delay + 5 * s))

    const detail = unwrap(await backend.handlers['events.get']({ id: 'evt_retried' }))
    expect(detail.arrivals!.map((a) => a.verdict)).toEqual(['first', 'retry', 'retry', 'retry'])
    expect(detail.arrivals![1]!.reason).toBe('fits the 3rd retry, 36 min after created_at')
    expect(detail.deliveries).toBe(4)
    expect(await replayAlerts(backend)).toEqual([])
    expect(backend.services.replay.status()).toMatchObject({ lastDay: 0, retries: 3, suspected: 0 })
  }, 60_000)

  it('keeps a conflicting body its own flag beside the verdict', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: t0 })
    const backend = await startBackend()
    await deliverAt(backend, 'evt_changed', t0 + 1 * s)
    vi.setSystemTime(t0 + 62 * s)
    const changed = body('evt_changed').replace('10.00', '99.00')
    await post(backend.webhookUrl, changed, { 'x-service-signature': signBody(secretA, changed) })
    const detail = unwrap(await backend.handlers['events.get']({ id: 'evt_changed' }))
    expect(detail.conflicts).toBe(1)
    expect(detail.arrivals!.map((a) => [a.verdict, a.conflicted])).toEqual([
      ['first', false],
      ['retry', true],
    ])
  }, 60_000)

  const tempDir = useTempDir('watchdesk-replay-')

  it('raises an alert owed from before a crash at the next start, and none twice', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: t0 })
    const dataDir = tempDir()
    const open = async () => {
      const b = unwrap(
        await startRealBackend({
          dataDir,
          shell: 'serve',
          env: {},
          log: silentLogger,
          listenerPort: 0,
          secrets: createMemoryStore({ 'webhook-secret:wh_alpha': secretA }),
        }),
      )
      return Object.assign(b, {
        webhookUrl: `${b.services.webhooks.address().url}/webhooks`,
        pushes: [],
        dataDir,
      })
    }
    const first = await open()
    try {
      await deliverAt(first, 'evt_owed', t0 + 1 * s)
      await deliverAt(first, 'evt_owed', t0 + 4 * s)
      await waitFor(async () => (await replayAlerts(first)).length === 1, 'the replay alert recorded')
      // As if the process had died between the commit and the classification: no suspect recorded.
      first.context.db.prepare('DELETE FROM replay_suspects').run()
    } finally {
      await first.close()
    }
    const second = await open()
    try {
      const owed = await waitFor(async () => {
        const found = await replayAlerts(second)
        return found.length === 2 && found
      }, 'the owed alert raised at the start')
      expect(owed.map((a) => a.subject)).toEqual(['event:evt_owed', 'event:evt_owed'])
      expect(second.services.replay.status()).toMatchObject({ lastDay: 1, suspected: 0 })
    } finally {
      await second.close()
    }
    // Recorded now: a third start raises nothing more.
    const third = await open()
    try {
      await third.services.alerts.idle()
      expect(await replayAlerts(third)).toHaveLength(2)
    } finally {
      await third.close()
    }
  }, 90_000)
})
