import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { eventually, saveScreenshot, useChromium } from '../support/browser'
import { useServeProcess } from '../support/serve-process'
import { mountTmpfs } from '../main/db/tmpfs'

/** The console shows free space below storage.warnFreeMb before a write fails: amber, with the fix. */
describe('low disk space in the console (bin/watchdesk serve, Chromium)', () => {
  const serve = useServeProcess()
  const chromium = useChromium()
  const tmpfs = mountTmpfs(8192)
  afterAll(() => {
    if (tmpfs.dir !== null) tmpfs.unmount()
  })

  it.skipIf(tmpfs.dir === null)(
    'shows "storage: disk low" in amber with the fix in its title',
    async () => {
      const dataDir = join(tmpfs.dir!, 'console')
      mkdirSync(dataDir)
      // An 8 MB disk: less free than the 100 MB warning level.
      writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ storage: { warnFreeMb: 100 } }))
      const running = await serve(['--data-dir', dataDir])
      const page = await chromium().newPage({ viewport: { width: 1280, height: 800 } })
      await page.goto(`${running.consoleUrl}/?token=${encodeURIComponent(running.token)}#/overview`)
      const badge = page.locator('.status-warn', { hasText: 'storage: disk low' }).first()
      await eventually(() => badge.count()).toBeGreaterThan(0)
      expect(await badge.getAttribute('title')).toMatch(
        /storage\.warnFreeMb\): free space, shorten retention/,
      )
      await saveScreenshot(page, 'storage-disk-low-1280x800')
    },
    60_000,
  )
})
