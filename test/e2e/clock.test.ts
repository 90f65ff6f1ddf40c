import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDemo } from '../../src/main/demo'
import type { Demo } from '../../src/main/demo'
import type { ClockStatus } from '../../src/shared/contract/clock'
import { unwrap } from '../../src/shared/result'
import { fakedClockEnv, haveFaketime } from '../main/clock/harness'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { callApi } from '../support/console'
import { useServeProcess } from '../support/serve-process'
import { useTempDir } from '../support/temp'
import { waitFor } from '../support/wait'

/** Issue 32.3 at a glance: `serve` with its clock 120 s ahead (libfaketime), the demo's twelve
 * chains stamping real time; the Overview's Clock tile and Settings → Chains name the offset and
 * the fix, at 1024×768. */
describe.skipIf(!haveFaketime)('the clock offset in Chromium', () => {
  const serve = useServeProcess()
  const temp = useTempDir('watchdesk-clock-e2e-', { per: 'file' })
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())
  let demo: Demo

  beforeAll(async () => {
    demo = unwrap(await startDemo())
  }, 120_000)
  afterAll(async () => {
    await demo?.stop()
  })

  it('the Overview shows the clock 120 s ahead with the fix, and so does Settings → Chains', async () => {
    const c = await serve(['--data-dir', temp(), '--config', demo.configFile], await fakedClockEnv(demo, 120))
    const api = { url: c.consoleUrl, token: c.token } as never
    await waitFor(
      async () => ((await callApi(api, 'clock.status')).json.value as ClockStatus).state === 'off',
      'the clock guard to find the clock off',
      { timeoutMs: 90_000, intervalMs: 500 },
    )
    const page = await openPage({ width: 1024, height: 768 })
    await page.goto(`${c.consoleUrl}/?token=${encodeURIComponent(c.token)}#/`)
    const tile = page.getByRole('region', { name: 'This console' })
    await eventually(() => tile.textContent()).toMatch(/clock\s*\+1\d\d s off/)
    expect(await tile.textContent()).toMatch(/NTP/)
    // The tile's status follows its lines (both from the clock store's push): awaited, not raced.
    await eventually(() => tile.locator('.tile-head .status').textContent()).toBe('clock')
    await eventually(() => page.getByTestId('glance-line').textContent()).toMatch(/clock 1\d\d s ahead/)
    // The tile is on the first screen, not below the fold.
    const box = await tile.boundingBox()
    expect(box!.y + box!.height).toBeLessThanOrEqual(768)
    await saveScreenshot(page, 'overview-clock-offset-1024x768')
    // Same document: the page keeps its token, so moving to Settings changes only the hash.
    await page.goto(`${c.consoleUrl}/#/settings`)
    const note = page.getByTestId('clock-note')
    await eventually(() => note.textContent()).toMatch(/1\d\d s ahead/)
    await note.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'settings-chains-clock-1024x768')
  }, 240_000)
})
