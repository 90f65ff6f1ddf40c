import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useChromium, saveScreenshot } from '../support/browser'
import { useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'

/** Every view at the two window sizes an operator uses, saved as the README's screenshots, with
 * the checks a glance would make: nothing wider than the window, the back end's status in words. */
const viewports = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]
const root = join(import.meta.dirname, '..', '..')
const docsScreenshots = join(root, 'docs', 'screenshots')

describe('screens', () => {
  const browser = useChromium()
  const startConsole = useTestConsole()
  const tempDir = useTempDir()

  it('shows every view at 1280x800 and 1920x1080 without horizontal overflow, with status in words', async () => {
    const running = await startConsole({ dataDir: tempDir(), rendererDir: join(root, 'out', 'renderer') })
    mkdirSync(docsScreenshots, { recursive: true })
    for (const viewport of viewports) {
      const page = await browser().newPage({ viewport })
      try {
        await page.goto(running.launchUrl)
        await page.locator('.sidebar-foot .status').filter({ hasText: 'back end' }).waitFor()
        // The routes as the app lists them, so a view added later is covered without editing this test.
        const routes = await page.locator('nav.sidebar a').evaluateAll((links) =>
          links.map((a) => ({
            id: a.getAttribute('href')!.replace('#/', ''),
            label: a.querySelector('span')!.textContent!,
          })),
        )
        expect(routes.map((r) => r.id)).toEqual(
          expect.arrayContaining(['overview', 'events', 'chains', 'wallets', 'settings']),
        )
        for (const route of routes) {
          await page.goto(`${running.url}/#/${route.id}`)
          await page.locator(`main.content[aria-label="${route.label}"] h1`).first().waitFor()
          // Views keep a live push stream open, so the network never idles: give their first load a moment.
          await page.waitForTimeout(500)
          const sizes = await page.evaluate(() => {
            const content = document.querySelector('main.content') as HTMLElement
            const root = document.documentElement
            return {
              document: { scroll: root.scrollWidth, client: root.clientWidth },
              content: { scroll: content.scrollWidth, client: content.clientWidth },
              statuses: [...document.querySelectorAll('.status')].map((s) => s.textContent?.trim() ?? ''),
            }
          })
          const where = `${route.id} at ${viewport.width}x${viewport.height}`
          expect(sizes.document.scroll, `${where}: page wider than the window`).toBeLessThanOrEqual(
            sizes.document.client,
          )
          expect(sizes.content.scroll, `${where}: content area overflows sideways`).toBeLessThanOrEqual(
            sizes.content.client,
          )
          expect(
            sizes.statuses.some((s) => /back end \S+/.test(s)),
            `${where}: back-end status missing`,
          ).toBe(true)
          expect(
            sizes.statuses.every((s) => s.length > 0),
            `${where}: a status badge without words`,
          ).toBe(true)
          if (route.id === 'overview') {
            // A fresh data dir: the first-run checklist lists what is missing, each with its fix.
            const firstRun = page.locator('section[aria-label="First run"]')
            await firstRun.waitFor()
            expect(await firstRun.locator('.first-run-item').count()).toBe(4)
            expect(await firstRun.locator('.first-run-missing .first-run-fix').count()).toBeGreaterThan(0)
          }
          const name = `${route.id}-${viewport.width}x${viewport.height}`
          const file = await saveScreenshot(page, name)
          copyFileSync(file, join(docsScreenshots, `${name}.png`))
        }
      } finally {
        await page.close()
      }
    }
  })
})
