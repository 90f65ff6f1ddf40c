import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { sendTestEvent } from '../../src/main/webhooks'
import { eventually, saveScreenshot, showView, useChromium, useSharedPage } from '../support/browser'
import { callApi, useTestConsole } from '../support/console'
import type { RunningConsole } from '../../src/main/serve'
import { useTempDir } from '../support/temp'
import { useTestTargets } from '../main/forward/target'
import { clippedCells } from '../support/layout'

const secret = 'whsec_e2e_forward_0123456789'

describe('Forwarding in Chromium', () => {
  // One console for the file, started by the first test that asks for it, with no forward target:
  // each test adds the targets it needs through the API (as Settings does) and they are removed
  // after it, so the next test sees none again. A console per test cost a start and a close of a
  // back end and a load of the app (~1.5 CPU-s); the tests move between its views by the hash.
  const tempDir = useTempDir('watchdesk-test-', { per: 'file' })
  const startConsole = useTestConsole({ per: 'file' })
  const startTarget = useTestTargets()
  // One page for the file.
  const openPage = useSharedPage(useChromium())
  let shared: Promise<{ c: RunningConsole; dataDir: string }> | undefined
  const fileConsole = () =>
    (shared ??= (async () => {
      const dataDir = tempDir()
      const c = await startConsole({
        dataDir,
        secrets: createMemoryStore({ 'webhook-secret:wh_e2e': secret }),
      })
      return { c, dataDir }
    })())
  const added: { c: RunningConsole; name: string }[] = []
  afterEach(async () => {
    for (const { c, name } of added.splice(0)) await callApi(c, 'forward.targets.set', { name, target: null })
  })
  async function addTarget(c: RunningConsole, name: string, url: string) {
    const { json } = await callApi(c, 'forward.targets.set', { name, target: { url } })
    expect(json.ok).toBe(true)
    added.push({ c, name })
  }

  it('shows per event its forward state and attempts, per target its counts, and replays to a URL', async () => {
    const app = await startTarget(() => ({ status: 200, body: '{"received":true}' }))
    const other = await startTarget()
    const { c } = await fileConsole()
    await addTarget(c, 'app1', app.url)
    const page = await openPage({ width: 1280, height: 800 })
    await showView(page, c, '#/events')
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

    // The filtered set (no filter: every stored event; one funding event when this test runs first).
    const { json: counted } = await callApi(c, 'events.count', { filter: {} })
    const stored: number = counted.value.total
    const replayAll = `Replay ${stored.toLocaleString('en-US')} ${stored === 1 ? 'event' : 'events'} to…`
    await eventually(() => page.getByRole('button', { name: replayAll }).count()).toBe(1)
    await page.setViewportSize({ width: 1024, height: 768 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1024)
    await saveScreenshot(page, 'forward-events-1024x768')
  })

  it('keeps the forward state in its own column and the conflict mark with the detail pane open at 1024 px', async () => {
    const app = await startTarget(() => ({ status: 200, body: '{}' }))
    const { c } = await fileConsole()
    await addTarget(c, 'app2', app.url)
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
    await showView(page, c, '#/events')
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
    const { c, dataDir } = await fileConsole()
    const page = await openPage({ width: 1280, height: 800 })
    await showView(page, c, '#/settings')
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
