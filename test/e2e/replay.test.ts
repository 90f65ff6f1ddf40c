import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { deliver, relaySecret } from '../main/relay/helpers'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { callApi, useTestConsole } from '../support/console'
import { clippedCells, inFirstScreen } from '../support/layout'
import { useTempDir } from '../support/temp'

/** The replay sentinel where the operator looks (issue 32.1): a stored id delivered again within a
 * second of its 200 shows on the Overview at a glance (the listener tile and the one-line summary)
 * at 1024×768, and the event's detail lists each arrival with its verdict. Real parts: the console
 * (SQLite, listener, alerts), Chromium. */

const rendererDir = join(import.meta.dirname, '..', '..', 'out', 'renderer')

const body = (id: string) =>
  JSON.stringify({
    id,
    type: 'funding.completed',
    created_at: new Date().toISOString(),
    data: { id: `fund_${id}`, status: 'completed', amount: 10, currency: 'USD' },
  })

describe('the replay sentinel in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())

  it('shows a suspected replay on the Overview at a glance and each arrival’s verdict in the event', async () => {
    const secrets = createMemoryStore({ 'webhook-secret:wh_glance': relaySecret })
    const c = await startConsole({ dataDir: tempDir(), secrets, rendererDir })
    const hooks = `${c.backend.services.webhooks.address().url!}/webhooks`
    const text = body('evt_captured_1')
    expect(await deliver(hooks, 'evt_captured_1', text)).toBe(200)
    // The same bytes again at once: no retry of the service comes that soon after a 200.
    expect(await deliver(hooks, 'evt_captured_1', text)).toBe(200)
    await eventually(async () => (await callApi(c, 'replay.status')).json.value.lastDay).toBe(1)

    const page = await openPage({ width: 1024, height: 768 })
    await page.goto(`${c.launchUrl}#/overview`)
    const listener = page.getByRole('region', { name: 'Webhook listener' })
    const fact = listener.getByTestId('replay-fact')
    await eventually(() => fact.textContent()).toMatch(/^1 suspected evt_captured_1 from \S*127\.0\.0\.1, /)
    expect(await fact.locator('a').getAttribute('href')).toBe('#/events/evt_captured_1')
    expect(await listener.locator('.tile-head .status').textContent()).toBe('listening')
    await eventually(() => page.getByTestId('glance-line').textContent()).toContain(
      '1 suspected replay in 24 h',
    )
    expect(await inFirstScreen(fact), 'the replay visible without scrolling at 1024x768').toBe(true)
    await saveScreenshot(page, 'overview-replay-1024x768')

    await fact.locator('a').click()
    const arrivals = page.getByRole('region', { name: 'Arrivals' })
    const rows = arrivals.locator('tbody.arrival')
    await eventually(() => rows.count()).toBe(2)
    expect(await rows.nth(0).locator('tr').first().getAttribute('data-verdict')).toBe('first')
    expect(await rows.nth(1).locator('tr').first().getAttribute('data-verdict')).toBe('suspected_replay')
    expect(await rows.nth(1).textContent()).toContain('no retry delay')
    await arrivals.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'event-arrivals-1024x768')
    expect(await clippedCells(arrivals, 'td, th'), 'arrival cells cut at 1024 px').toEqual([])
  })
})
