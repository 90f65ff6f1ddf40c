import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'
import { useFollowingConsoles } from '../relay/helpers'
import { envelope, post, secretA } from '../webhooks/helpers'
import { useTestTargets } from './target'

/** A target answering 410 Gone is stopped by the forwarder; services.ts turns that state into the
 * alert rule `forward.gone` (to a webhook channel recorded by a local HTTP server). */
describe('a forward target that answers 410 Gone', () => {
  const tempDir = useTempDir('watchdesk-gone-')
  const recorder = useRecorder()
  const consoles = useFollowingConsoles()
  const startTarget = useTestTargets()

  it('is stopped, shown as stopped with the cause and the fix, alerted once, and resumes with its queue at a new URL', async () => {
    const channel = await recorder()
    const app = await startTarget(() => ({ status: 410, body: 'this hook was deleted' }))
    const clock = manualClock()
    const dataDir = tempDir()
    const config = (url: string) => ({
      forward: { targets: { app: { url } } },
      alerts: { channels: { hook: { type: 'webhook' } } },
    })
    const backend = await consoles({
      dataDir,
      config: config(app.url),
      secrets: { 'webhook-secret:wh_alpha': secretA, 'alert-channel:hook': channel.url },
      clock,
    })
    const { forward, alerts } = backend.services
    const url = `${backend.services.webhooks.address().url}/webhooks`
    for (const id of ['evt_gone_1', 'evt_gone_2']) {
      const body = envelope(id)
      expect((await post(url, body, { 'x-service-signature': signBody(secretA, body) })).status).toBe(200)
    }
    const status = await waitFor(
      () => forward.status().targets.find((t) => t.health === 'stopped'),
      'the target stopped',
    )
    expect(status.lastError).toMatch(/answered 410 Gone.*Fix the URL/)
    await waitFor(() => forward.status().targets[0]!.pending === 2 || undefined, 'both events kept queued')
    const sent = app.received.length
    clock.advance(5_000)
    await alerts.idle()
    clock.advance(5_000)
    await alerts.idle()
    const gone = channel.received.filter((r) => r.json?.rule === 'forward.gone')
    expect(gone.map((r) => r.json)).toEqual([
      expect.objectContaining({
        rule: 'forward.gone',
        subject: 'forward:app',
        kind: 'fired',
        title: 'Forward target app stopped: 410 Gone',
      }),
    ])
    expect(unwrap(alerts.incidents({ rule: 'forward.gone', limit: 10 }))).toHaveLength(1)
    expect(app.received.length).toBe(sent)

    // The operator points the target at the app's new address: it resumes with its queue, and the
    // incident closes once it delivered.
    const moved = await startTarget()
    // The test console's targets come from its --config overlay (read again with the saved file).
    writeFileSync(join(dataDir, 'overlay.json'), JSON.stringify(config(moved.url)))
    unwrap(await forward.setTarget('app', { url: moved.url }))
    await waitFor(
      () => (moved.acknowledged.has('evt_gone_1') && moved.acknowledged.has('evt_gone_2')) || undefined,
      'the kept queue delivered to the new URL',
    )
    await waitFor(() => forward.status().targets[0]!.lastOkAt ?? undefined, 'the delivery counted')
    clock.advance(5_000)
    await alerts.idle()
    expect(channel.received.filter((r) => r.json?.rule === 'forward.gone').map((r) => r.json.kind)).toEqual([
      'fired',
      'recovered',
    ])
  })
})
