import { describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import { waitFor } from '../../support/wait'
import { envelope, post, secretA, useWebhookBackend } from '../webhooks/helpers'
import { useTestTargets } from './target'

const signed = (body: string) => ({ 'x-service-signature': signBody(secretA, body) })

describe('forward targets changing while attempts are in flight', () => {
  const startBackend = useWebhookBackend()
  const startTarget = useTestTargets()

  it('keeps delivering to a target after a replay to a URL adds a target mid-flight (its in-flight slots are freed)', async () => {
    // Held answers keep the target's eight slots busy while the replay changes the targets (a
    // 400 ms delay let some finish first on a loaded machine); released after the replay.
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const app = await startTarget(() => ({ status: 200, body: '{"ok":true}', heldUntil: held }))
    const elsewhere = await startTarget()
    const backend = await startBackend({ config: { forward: { targets: { app: { url: app.url } } } } })
    const ids = Array.from({ length: 20 }, (_, i) => `evt_mid_${String(i).padStart(2, '0')}`)
    for (const id of ids) {
      const body = envelope(id)
      expect((await post(backend.webhookUrl, body, signed(body))).status).toBe(200)
    }
    await waitFor(() => app.received.length >= 8, 'the first eight attempts in flight')
    expect(app.acknowledged.size).toBe(0)
    unwrap(backend.services.forward.replay({ ids: [ids[0]!], destination: { url: elsewhere.url } }))
    release()
    await waitFor(() => ids.every((id) => app.acknowledged.has(id)), 'all twenty at the target', {
      timeoutMs: 15_000,
    })
    await waitFor(() => {
      const t = backend.services.forward.status().targets.find((s) => s.name === 'app')
      return t?.inFlight === 0 && t.pending === 0 && t.delivered === 20
    }, 'the target idle with twenty delivered')
    expect(elsewhere.received.map((r) => r.id)).toEqual([ids[0]])
  })
})
