import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { sendTestEvent } from '../../src/main/webhooks'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'
import { useTestTargets } from '../main/forward/target'
import { clippedCells } from '../support/layout'

const secret = 'whsec_e2e_forward_0123456789'

describe('Forwarding in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const startTarget = useTestTargets()
  // One page for the file: each test loads its own console's document in it.
  const openPage = useSharedPage(useChromium())

  it('shows per event its forward state and attempts, per target its counts, and replays to a URL', async () => {
    const app = await startTarget(() => ({ status: 200, body: '{"received":true}' }))
    const other = await startTarget()
    const c = await startConsole({
      dataDir: tempDir(),
      secrets: createMemoryStore({ 'webhook-secret:wh_e2e': secret }),
      forwardTo: [{ url: app.url }],
    })
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${c.launchUrl}#/events`)
    await eventually(() => page.locator('main h1').textContent()).toBe('Events')
    const sent = await sendTestEvent({
      url: `${c.backend.services.webhooks.address().url}/webhooks`,
      secret,
      type: 'funding.completed',
    })
    const id = sent.ok ? sent.value.id : ''
    const row = page.locator(`[data-event-id="${id}"]`)
    await eventually(() => row.locator('.col-fwd').textContent()).toBe('delivered')
    const strip = page.getByRole('region', { name: 'Forward targets' })
    await eventually(() => strip.textContent()).toMatch(/delivered\s*1\s*pending\s*0\s*failing\s*0/)
    expect(await strip.textContent()).toContain(app.url)

    await row.click()
    const detail = page.getByRole('complementary', { name: 'Event detail' })
    await eventually(() => detail.getByRole('region', { name: 'Forwarding' }).textContent()).toContain(
      '{"received":true}',
    )
    await detail.getByRole('button', { name: 'Replay to…' }).click()
    await detail.getByLabel('Replay URL').fill(other.url)
    await detail.getByRole('button', { name: 'Replay', exact: true }).click()
    await eventually(() => other.acknowledged.has(id)).toBe(true)
    await eventually(() => detail.textContent()).toContain(`url:${other.url} (replay)`)

    // The filtered set: one funding event here.
    await eventually(() => page.getByRole('button', { name: 'Replay 1 event to…' }).count()).toBe(1)
    await page.setViewportSize({ width: 1024, height: 768 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024)
    await saveScreenshot(page, 'forward-events-1024x768')
  })

  it('keeps the forward state in its own column and the conflict mark with the detail pane open at 1024 px', async () => {
    const app = await startTarget(() => ({ status: 200, body: '{}' }))
    const c = await startConsole({
      dataDir: tempDir(),
      secrets: createMemoryStore({ 'webhook-secret:wh_e2e': secret }),
      forwardTo: [{ url: app.url }],
    })
    const url = `${c.backend.services.webhooks.address().url}/webhooks`
    const envelope = (amount: number) => ({
      id: 'evt_conflicting_redelivery_0001',
      type: 'card.transaction.completed',
      created_at: new Date().toISOString(),
      data: { id: 'ctx_1', amount },
    })
    expect((await sendTestEvent({ url, secret, type: 'x', envelope: envelope(10) })).ok).toBe(true)
    expect((await sendTestEvent({ url, secret, type: 'x', envelope: envelope(99) })).ok).toBe(true)
    const page = await openPage({ width: 1024, height: 768 })
    await page.goto(`${c.launchUrl}#/events`)
    const row = page.locator('[data-event-id="evt_conflicting_redelivery_0001"]')
    await eventually(() => row.locator('.col-fwd').textContent()).toBe('delivered')
    expect(await row.locator('.col-deliveries').textContent()).toBe('conflict')
    expect(await row.locator('.col-source').textContent()).toBe('local')
    await row.click()
    await page.getByRole('complementary', { name: 'Event detail' }).waitFor()
    // With the pane open: the type, the forward state and the conflict mark are shown whole.
    for (const cell of ['.col-fwd', '.col-deliveries']) {
      expect(await row.locator(cell).isVisible(), cell).toBe(true)
      expect(await clippedCells(row, cell), cell).toEqual([])
    }
    expect(await row.locator('.col-deliveries').textContent()).toBe('conflict')
    expect(await row.locator('.col-fwd').textContent()).toBe('delivered')
    await saveScreenshot(page, 'events-detail-open-conflict-1024x768')
  })

  it('adds a forward target in Settings through the config writer', async () => {
    const app = await startTarget()
    const dataDir = tempDir()
    const c = await startConsole({ dataDir, secrets: createMemoryStore({ 'webhook-secret:wh_e2e': secret }) })
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${c.launchUrl}#/settings`)
    const panel = page.getByRole('region', { name: 'Forward targets' })
    await eventually(() => panel.textContent()).toContain('No forward target.')
    await panel.getByRole('button', { name: 'Add target…' }).click()
    await panel.getByLabel('name').fill('app')
    await panel.getByLabel('url').fill(app.url)
    await panel.getByLabel('events').fill('funding.*')
    await panel.getByRole('button', { name: 'Save' }).click()
    await eventually(() => panel.locator('tbody tr').count()).toBe(1)
    expect(await panel.locator('tbody').textContent()).toContain('funding.*')
    const saved = JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))
    expect(saved.forward.targets.app).toEqual({ url: app.url, events: ['funding.*'], enabled: true })
    // And it is live: the next funding event goes there.
    const sent = await sendTestEvent({
      url: `${c.backend.services.webhooks.address().url}/webhooks`,
      secret,
      type: 'funding.completed',
    })
    await eventually(() => app.acknowledged.has(sent.ok ? sent.value.id : '')).toBe(true)
    await panel.getByRole('button', { name: 'Remove' }).click()
    await eventually(() => panel.textContent()).toContain('No forward target.')
  })
})
