import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  eventually,
  saveScreenshot,
  screenshotDir,
  screenshotsWanted,
  useChromium,
  useSharedPage,
} from '../support/browser'
import { useServeProcess } from '../support/serve-process'
import { mountTmpfs } from '../main/db/tmpfs'

/** The console shows free space below storage.warnFreeMb before a write fails: amber, with the fix. */
describe('low disk space in the console (bin/watchdesk serve, Chromium)', () => {
  const serve = useServeProcess()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())
  const tmpfs = mountTmpfs(8192)
  afterAll(() => {
    if (tmpfs.dir !== null) tmpfs.unmount()
  })

  it.skipIf(tmpfs.dir === null)(
    'shows "storage: disk low" in amber with the fix in its title, and Settings → Storage the figures, the last retention run and the keys',
    async () => {
      const dataDir = join(tmpfs.dir!, 'console')
      mkdirSync(dataDir)
      // An 8 MB disk: less free than the 100 MB warning level.
      writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ storage: { warnFreeMb: 100 } }))
      const running = await serve(['--data-dir', dataDir])
      const page = await openPage({ width: 1280, height: 800 })
      await page.goto(`${running.consoleUrl}/?token=${encodeURIComponent(running.token)}#/overview`)
      const badge = page.locator('.status-warn', { hasText: 'storage: disk low' }).first()
      await eventually(() => badge.count()).toBeGreaterThan(0)
      expect(await badge.getAttribute('title')).toMatch(
        /storage\.warnFreeMb\): free space, shorten retention/,
      )
      await saveScreenshot(page, 'storage-disk-low-1280x800')

      // Settings → Storage: the figures of `watchdesk storage`, the warning, and the retention keys.
      await page.goto(`${running.consoleUrl}/#/settings`)
      const panel = page.getByRole('region', { name: 'Storage settings' })
      await panel.scrollIntoViewIfNeeded()
      await eventually(() => panel.locator('dt', { hasText: 'Retention last run' }).count()).toBe(1)
      const lastRun = panel.locator('dt:has-text("Retention last run") + dd')
      await eventually(async () => (await lastRun.textContent()) !== 'not yet').toBe(true)
      expect(await panel.locator('.banner-warn').textContent()).toMatch(/storage\.warnFreeMb/)
      expect(await panel.locator('dt:has-text("Events stored") + dd').textContent()).toBe('0')
      expect(await panel.locator('label', { hasText: 'retention.events.days' }).count()).toBe(1)
      if (screenshotsWanted)
        await panel.screenshot({ path: join(screenshotDir, 'settings-storage-1280x800.png') })
    },
    60_000,
  )
})
