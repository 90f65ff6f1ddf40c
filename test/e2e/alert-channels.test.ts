import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { unwrap } from '../../src/shared/result'
import { useRecorder } from '../main/alerts/harness'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'

const root = join(import.meta.dirname, '..', '..')

/** Issue 19: an alert channel's secret is set in Settings like a key, and the desktop channel stays
 * beside the one added. */
describe('alert channel secrets in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())
  const recorder = useRecorder()

  it('stores a webhook channel URL typed in Settings → Alert channels, shows it only masked, and the test alert reaches it', async () => {
    const hook = await recorder()
    const dataDir = tempDir()
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ alerts: { channels: { ops: { type: 'webhook' } } } }),
    )
    const secrets = createMemoryStore()
    const c = await startConsole({ dataDir, secrets, rendererDir: join(root, 'out', 'renderer') })
    const page = await openPage({ width: 1024, height: 768 })
    await page.goto(`${c.launchUrl}#/settings`)
    const table = page.getByRole('table', { name: 'Alert channels' })
    const ops = table.locator('tbody tr', { hasText: 'ops' })
    await eventually(() => ops.textContent()).toContain('missing')
    expect(await table.locator('tbody tr').allTextContents()).toEqual([
      expect.stringContaining('ops'),
      expect.stringContaining('desktop'),
    ])

    await ops.getByLabel('Secret of ops').fill('hooks.example.com/no-scheme')
    await ops.getByRole('button', { name: 'Store' }).click()
    await eventually(() => ops.getByRole('alert').textContent()).toContain('is not one. Nothing was stored.')

    const url = `${hook.url}/alerts/secret-path-62`
    await ops.getByLabel('Secret of ops').fill(url)
    await ops.getByRole('button', { name: 'Store' }).click()
    await eventually(() => ops.textContent()).toContain('keychain')
    expect(await ops.textContent()).toContain(`${hook.url}/…h-62`)
    expect(unwrap(await secrets.get('alert-channel:ops'))).toBe(url)
    expect(await page.content()).not.toContain('secret-path-62')

    await ops.getByRole('button', { name: 'Send test' }).click()
    await eventually(() => ops.textContent()).toContain('sent')
    expect(hook.received.map((r) => r.path)).toEqual(['/alerts/secret-path-62'])
    // At 1024 px the secret field keeps the table inside its panel: nothing pushed sideways.
    const fits = await table.evaluate((el) => {
      const panel = el.closest('section')!
      return el.getBoundingClientRect().right <= panel.getBoundingClientRect().right + 0.5
    })
    expect(fits).toBe(true)
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth),
    ).toBe(true)
    await table.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'alert-channels-1024x768')
  })
})
