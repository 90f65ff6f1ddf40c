import { describe, expect, it } from 'vitest'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useFollowingConsoles } from '../relay/helpers'
import { secretA } from '../webhooks/helpers'
import { useRecorder } from './harness'

/** Issue 29 item 2, the same rule for the alert outbox: a row that cannot be sent (here one that
 * another version wrote and this one cannot read) fails alone. Before, every drain stopped at it
 * (an unreadable row even emptied the whole read), so no alert after it went out, ever. */
describe('an alert outbox row that cannot be sent', () => {
  const tempDir = useTempDir('watchdesk-alert-outbox-')
  const recorder = useRecorder()
  const consoles = useFollowingConsoles()

  it('is logged as failed with the cause and leaves the outbox, and the alert queued after it is sent', async () => {
    const channel = await recorder()
    const clock = manualClock()
    const backend = await consoles({
      dataDir: tempDir(),
      config: { alerts: { channels: { hook: { type: 'webhook' } } } },
      secrets: { 'webhook-secret:wh_alpha': secretA, 'alert-channel:hook': channel.url },
      clock,
    })
    const { alerts } = backend.services
    const db = backend.context.db
    const insert = db.prepare('INSERT INTO alert_outbox (channel, alert, created_at) VALUES (?, ?, ?)')
    insert.run('hook', '{"rule": "chain.down", "t": ', clock.now())
    insert.run('hook', 'null', clock.now())
    alerts.condition({
      rule: 'forward.gone',
      subject: 'forward:app',
      serviceId: null,
      name: 'Forward target app',
      active: true,
      title: 'Forward target app stopped: 410 Gone',
      body: 'gone',
    })
    await alerts.idle()
    const sent = await waitFor(
      () => channel.received.find((r) => r.json?.rule === 'forward.gone'),
      'the alert after the broken rows at the channel',
    )
    expect(sent.json).toMatchObject({ kind: 'fired', title: 'Forward target app stopped: 410 Gone' })
    const failed = db
      .prepare(`SELECT rule, channel, result, detail FROM alert_log WHERE result = 'failed' ORDER BY id`)
      .all() as { rule: string; channel: string; result: string; detail: string }[]
    expect(failed).toEqual([
      expect.objectContaining({
        rule: 'alerts.outbox',
        channel: 'hook',
        detail: expect.stringMatching(/^could not be sent: its stored alert is not readable/),
      }),
      expect.objectContaining({
        rule: 'alerts.outbox',
        channel: 'hook',
        detail: expect.stringMatching(/^could not be sent/),
      }),
    ])
    expect((db.prepare('SELECT count(*) AS n FROM alert_outbox').get() as { n: number }).n).toBe(0)
    expect(channel.received).toHaveLength(1)
  })
})
