import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { sendTestEvent } from '../../src/main/webhooks'
import { eventually, useChromium, useSharedPage } from '../support/browser'
import { callApi, useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'
import { waitFor } from '../support/wait'

const secret = 'whsec_e2e_desktop_alerts_0123'

/** The `desktop` alert channel in serve mode: "shown" only once a console page in Chromium displayed
 * it. The operating system's notification is the one part replaced: the page's Notification is a
 * recorder (headless Chromium shows none), with permission granted. */
describe('desktop alerts in serve mode', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page, with the recorder installed for this test only (a context of its own
  // cost Chromium a new page and its renderer setup, ~1 CPU-s more than a load in the open one).
  const openPage = useSharedPage(useChromium())

  it('logs an alert "not shown: no console open" until a page opens, which shows it; an open page shows the next at once', async () => {
    const c = await startConsole({
      dataDir: tempDir(),
      secrets: createMemoryStore({ 'webhook-secret:wh_e2e': secret }),
    })
    const listener = `${c.backend.services.webhooks.address().url}/webhooks`
    const desktopLog = async () =>
      ((await callApi(c, 'alerts.log', { limit: 20 })).json.value.records as any[]).filter(
        (r) => r.channel === 'desktop' && r.rule === 'event.type',
      )

    // 1. No page open: the alert is logged as not shown, and saved for the next page.
    const first = await sendTestEvent({ url: listener, secret, type: 'payout.failed' })
    expect(first.ok).toBe(true)
    await c.backend.services.alerts.idle()
    const [missed] = await waitFor(async () => {
      const log = await desktopLog()
      return log.length === 1 && log
    }, 'the desktop alert logged')
    expect(missed).toMatchObject({
      result: 'not_shown',
      detail: 'not shown: no console open (the next console page that opens shows it)',
    })
    expect((await callApi(c, 'alerts.missed')).json.value.records.map((r: any) => r.id)).toEqual([missed.id])

    // 2. A page opens: it shows the missed alert and confirms it.
    const page = await openPage({ width: 1280, height: 800 })
    const recorder = await page.addInitScript(() => {
      const shown: { title: string; body: string }[] = []
      ;(window as any).__shown = shown
      class RecordingNotification {
        static permission = 'granted'
        static requestPermission = async () => 'granted'
        onclick: (() => void) | null = null
        constructor(title: string, options?: { body?: string }) {
          shown.push({ title, body: options?.body ?? '' })
        }
      }
      ;(window as any).Notification = RecordingNotification
    })
    try {
      await page.goto(c.launchUrl)
      const shown = () => page.evaluate(() => (window as any).__shown as { title: string; body: string }[])
      await eventually(async () => (await shown()).map((n) => n.title)).toEqual(['payout.failed'])
      expect((await shown())[0]!.body).toMatch(/^Missed while no console was open/)
      await eventually(async () => (await desktopLog()).map((r) => [r.result, r.detail])).toEqual([
        ['sent', 'shown in a console page'],
      ])
      expect((await callApi(c, 'alerts.missed')).json.value.records).toEqual([])

      // 3. Loaded again (a fresh page: the confirmed alert is not shown twice) and its push stream
      // live (a new event appears in the Events view), the page shows the next alert and confirms it.
      await page.goto(`${c.launchUrl}#/events`)
      const live = await sendTestEvent({ url: listener, secret, type: 'card.created' })
      const liveId = live.ok ? live.value.id : ''
      await eventually(() => page.locator(`[data-event-id="${liveId}"]`).count()).toBe(1)
      expect((await sendTestEvent({ url: listener, secret, type: 'funding.failed' })).ok).toBe(true)
      await eventually(async () => (await shown()).map((n) => n.title)).toEqual(['funding.failed'])
      await eventually(async () => (await desktopLog()).map((r) => [r.title, r.result])).toEqual([
        ['funding.failed', 'sent'],
        ['payout.failed', 'sent'],
      ])
    } finally {
      await recorder.dispose()
    }
  })
})
