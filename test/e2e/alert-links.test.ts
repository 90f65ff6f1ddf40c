import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { sendTestEvent } from '../../src/main/webhooks'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import type { RunningConsole } from '../../src/main/serve'
import { useTempDir } from '../support/temp'
import { useRecorder } from '../main/alerts/harness'

const secret = 'whsec_e2e_links_0123456789'

/** An alert carries a link to the place it is about; the link never carries the launch token,
 * and a browser tab opened from it (token given by hand) lands on that item. */
describe('links from alerts into the console', () => {
  const tempDir = useTempDir('watchdesk-links-')
  const startConsole = useTestConsole()
  const fileDir = useTempDir('watchdesk-links-', { per: 'file' })
  const startFileConsole = useTestConsole({ per: 'file' })
  let linked: RunningConsole | undefined
  const recorder = useRecorder()
  // One page for the file: each console listens on a port of its own, so its origin's storage
  // starts empty in it (the app keeps the token in session storage; it sets no cookie).
  const openPage = useSharedPage(useChromium())

  it('a webhook alert links to its event; opened in Chromium with the token given separately, the event detail shows', async () => {
    const hook = await recorder()
    const dir = fileDir()
    const configFile = join(dir, 'overlay.json')
    mkdirSync(dir, { recursive: true })
    writeFileSync(configFile, JSON.stringify({ alerts: { channels: { hook: { type: 'webhook' } } } }))
    const c = (linked = await startFileConsole({
      dataDir: dir,
      configFile,
      secrets: createMemoryStore({
        'webhook-secret:wh_links': secret,
        'alert-channel:hook': `${hook.url}/alerts`,
      }),
    }))
    const sent = await sendTestEvent({
      url: `${c.backend.services.webhooks.address().url}/webhooks`,
      secret,
      type: 'payout.failed',
    })
    expect(sent.ok).toBe(true)
    const id = sent.ok ? sent.value.id : ''

    await eventually(() => hook.received.filter((r) => r.json?.subject === `event:${id}`).length).toBe(1)
    const alert = hook.received.find((r) => r.json?.subject === `event:${id}`)!.json
    expect(alert.link).toBe(`${c.url}/#/events/${id}`)
    expect(alert.link).not.toContain(c.token)

    // Nothing in this tab's storage for this console, as when the link is clicked in Slack.
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(alert.link)
    await eventually(() =>
      page.getByRole('heading', { name: 'This console needs its launch token' }).count(),
    ).toBe(1)
    await page.getByLabel('Launch token').fill(c.token)
    await page.getByRole('button', { name: 'Open the console' }).click()
    const detail = page.getByRole('complementary', { name: 'Event detail' })
    await eventually(() => detail.textContent()).toContain(id)
    expect(await page.locator('main h1').textContent()).toBe('Events')
    expect(page.url()).not.toContain(c.token)
    await saveScreenshot(page, 'alert-link-event-detail-1280x800')
  })

  // On the first test's console (a start and a close of a back end fewer): this tab now holds its
  // token, as after the first link; any console shows the route. Run alone, it starts its own.
  it('a chain link opens that chain’s drawer', async () => {
    const c = linked ?? (await startConsole({ dataDir: tempDir() }))
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${c.launchUrl}#/chains/137`)
    await eventually(() => page.locator('main h1').first().textContent()).toBe('Chains')
    await eventually(() => page.getByRole('complementary', { name: 'Polygon details' }).count()).toBe(1)
  })
})
