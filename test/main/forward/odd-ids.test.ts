import { describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import { waitFor } from '../../support/wait'
import { envelope, post, secretA, useWebhookBackend } from '../webhooks/helpers'
import type { Received } from './target'
import { useTestTargets } from './target'

/** The app side of docs/forward.md's recipe: the header as is, or percent-decoded when flagged. */
function eventIdOf(r: Received): string | null {
  const value = r.headers['x-watchdesk-event-id']
  if (typeof value !== 'string') return null
  return r.headers['x-watchdesk-event-id-encoding'] === 'percent' ? decodeURIComponent(value) : value
}

const signed = (body: string) => ({ 'x-service-signature': signBody(secretA, body) })

/** Issue 29 item 2: `evt_東京_1` crashed the forward worker at every restart (ERR_INVALID_CHAR
 * from the id put into a header as is), so nothing after it was ever forwarded. */
describe('an event id no header can carry as is', () => {
  const startBackend = useWebhookBackend()
  const startTarget = useTestTargets()

  it('is forwarded percent-encoded (decoded by the docs recipe), plain ids unchanged, and the 100 events after it arrive', async () => {
    const target = await startTarget()
    const backend = await startBackend({ config: { forward: { targets: { app: { url: target.url } } } } })
    const odd = ['evt_東京_1', 'evt_\u001b[31m_esc', 'evt 100%_sure\r\n', 'evt_\u{1F600}_emoji']
    const plain = Array.from({ length: 100 }, (_, i) => `evt_after_${i}`)
    for (const id of [...odd, ...plain]) {
      const body = envelope(id)
      expect((await post(backend.webhookUrl, body, signed(body))).status).toBe(200)
    }
    await waitFor(() => target.acknowledged.size >= 104, 'all 104 events at the app', { timeoutMs: 30_000 })
    const byId = new Map(target.received.map((r) => [eventIdOf(r), r]))
    for (const id of [...odd, ...plain]) {
      const r = byId.get(id)
      expect(r, id).toBeDefined()
      // The header decodes to the envelope's own id.
      expect((JSON.parse(r!.body.toString('utf8')) as { id: string }).id).toBe(id)
    }
    // A plain id travels exactly as before, with no flag.
    const first = byId.get('evt_after_0')!
    expect(first.headers['x-watchdesk-event-id']).toBe('evt_after_0')
    expect(first.headers['x-watchdesk-event-id-encoding']).toBeUndefined()
    expect(byId.get('evt_東京_1')!.headers['x-watchdesk-event-id']).toBe('evt_%E6%9D%B1%E4%BA%AC_1')
    await waitFor(
      () => backend.services.forward.status().targets[0]!.pending === 0 || undefined,
      'the outbox drained',
    )
    const status = backend.services.forward.status()
    expect(status.targets[0]).toMatchObject({ health: 'ok', delivered: 104, pending: 0 })
    // The worker never stopped.
    expect(status.worker).toMatchObject({ health: 'ok', restartsLastMinute: 0 })
    expect(status.problem).toBeNull()
  }, 60_000)

  it('a target whose configured header cannot be sent fails each of its rows with the cause, retried on schedule, while another target gets every event', async () => {
    const broken = await startTarget()
    const healthy = await startTarget()
    const backend = await startBackend({
      config: {
        forward: {
          targets: {
            broken: { url: broken.url, headers: { 'X-Env': 'staging\u001b' }, retrySchedule: [20] },
            healthy: { url: healthy.url },
          },
          probeSeconds: 1,
        },
      },
    })
    const ids = Array.from({ length: 20 }, (_, i) => `evt_hdr_${i}`)
    for (const id of ids) {
      const body = envelope(id)
      expect((await post(backend.webhookUrl, body, signed(body))).status).toBe(200)
    }
    await waitFor(() => ids.every((id) => healthy.acknowledged.has(id)), 'every event at the healthy target')
    // The broken target's rows fail alone, each attempt recorded with the cause, and are retried.
    const detail = await waitFor(() => {
      const d = unwrap(backend.services.forward.event('evt_hdr_0'))
      const row = d.forwards.find((f) => f.target === 'broken')
      return row && row.attempts >= 2 && d
    }, 'the broken row tried twice')
    const row = detail.forwards.find((f) => f.target === 'broken')!
    expect(row.state).toBe('failing')
    expect(row.lastError).toMatch(/^the request could not be made \(.*X-Env/)
    expect(detail.attempts.find((a) => a.target === 'broken')!.error).toMatch(/could not be made/)
    expect(broken.received).toEqual([])
    const status = backend.services.forward.status()
    expect(status.targets.find((t) => t.name === 'broken')).toMatchObject({ health: 'failing' })
    expect(status.targets.find((t) => t.name === 'broken')!.lastError).toMatch(/could not be made/)
    expect(status.worker).toMatchObject({ health: 'ok', restartsLastMinute: 0 })
  }, 60_000)
})
