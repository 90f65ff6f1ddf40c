import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { sendTestEvent } from '../../src/main/webhooks'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'

const secret = 'whsec_e2e_drift_0123456789'

describe('Payload drift in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())

  it('shows a shape change on the Overview at a glance, marks its first event in the Events view, and acknowledges it there', async () => {
    const dataDir = tempDir()
    const c = await startConsole({
      dataDir,
      secrets: createMemoryStore({ 'webhook-secret:wh_e2e': secret }),
    })
    await c.backend.context.updateConfig((saved) => void (saved.drift = { learnEvents: 3 }))
    const url = `${c.backend.services.webhooks.address().url}/webhooks`
    const send = (id: string, data: Record<string, unknown>) =>
      sendTestEvent({
        url,
        secret,
        type: 'x',
        envelope: { id, type: 'payment.succeeded', created_at: new Date().toISOString(), data },
      })
    for (let i = 0; i < 3; i++)
      expect((await send(`evt_p_${i}`, { id: `pay_${i}`, amount: 100 + i })).ok).toBe(true)
    expect((await send('evt_p_changed_3', { id: 'pay_3', amount: '103.00', fee: 2 })).ok).toBe(true)

    const page = await openPage({ width: 1024, height: 768 })
    await page.goto(`${c.launchUrl}#/overview`)
    const tile = page.getByRole('region', { name: 'Payload shapes' })
    await eventually(() => tile.textContent()).toContain('1 changed')
    expect(await tile.textContent()).toContain(
      'payment.succeeded: amount retyped number → string; fee added (number)',
    )
    expect(await tile.isVisible()).toBe(true)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024)
    await saveScreenshot(page, 'overview-shape-change-1024x768')

    await tile.getByRole('link', { name: /payment\.succeeded: amount retyped/ }).click()
    const row = page.locator('[data-event-id="evt_p_changed_3"]')
    const mark = (r: typeof row) => r.locator('.status', { hasText: /^shape$/ })
    await eventually(() => mark(row).count()).toBe(1)
    expect(await mark(page.locator('[data-event-id="evt_p_2"]')).count()).toBe(0)
    await row.click()
    const detail = page.getByRole('complementary', { name: 'Event detail' })
    const section = detail.getByRole('region', { name: 'Payload shape change' })
    await eventually(() => section.textContent()).toContain('amount retyped number → string')
    await saveScreenshot(page, 'events-shape-change-1024x768')
    await section.getByRole('button', { name: /Acknowledge/ }).click()
    await eventually(() => section.textContent()).toContain('Acknowledged')
    expect(c.backend.context.config().drift.acknowledged).toEqual([
      'payment.succeeded amount',
      'payment.succeeded fee',
    ])
    await page.goto(`${c.launchUrl}#/overview`)
    await eventually(() => tile.textContent()).toContain('unchanged')
  })
})
