import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, inject } from 'vitest'
import { chromiumLaunchOptions } from './chromium-server'

export const screenshotDir = join(import.meta.dirname, '..', '..', 'test-results', 'screenshots')

/** Debian's Chromium, driven by playwright-core. Never downloads a browser. In the e2e project the
 * files share one Chromium started by the global setup (test/support/chromium-server.ts) and each
 * connects to it; a file run alone elsewhere launches its own. */
export function useChromium(): () => Browser {
  let browser: Browser | undefined
  beforeAll(async () => {
    const endpoint = inject('chromiumEndpoint')
    browser = endpoint ? await chromium.connect(endpoint) : await chromium.launch(chromiumLaunchOptions())
  })
  afterAll(async () => {
    // On a shared Chromium this closes this file's connection and the contexts it opened.
    await browser?.close()
  })
  return () => {
    if (!browser) throw new Error('Chromium did not start')
    return browser
  }
}

export interface Viewport {
  width: number
  height: number
}

/** One page for every test of a file (or of the describe block that calls it), resized to the
 * viewport each test asks for. A page costs Chromium about 3.5 s of CPU to open and load the app
 * (a renderer process, the context, the bundle compiled cold), a navigation of an open page to
 * another console about 1 s: each test still loads its own console's document with `goto`, so it
 * sees no state of the test before it (its console listens on a port of its own, so its origin and
 * session storage are its own too). Close it never: it goes with the file's connection. */
export function useSharedPage(browser: () => Browser): (viewport?: Viewport) => Promise<Page> {
  let page: Page | undefined
  afterAll(async () => {
    await page?.context().close()
  })
  return async (viewport = { width: 1280, height: 720 }) => {
    if (!page || page.isClosed()) {
      page = await browser().newPage({ viewport })
      return page
    }
    await page.setViewportSize(viewport)
    return page
  }
}

/** Pictures are for a person to look at, and no test reads them: taking one costs Chromium about a
 * second on a loaded machine (66 calls in the e2e files), so they are saved only when asked
 * (`WATCHDESK_SCREENSHOTS=1`, or `npm run screenshots`, which refreshes the README's). */
export const screenshotsWanted =
  process.env.WATCHDESK_SCREENSHOTS === '1' || process.env.WATCHDESK_UPDATE_SCREENSHOTS === '1'

/** Saves the page as `test-results/screenshots/<name>.png` when pictures are wanted (see above);
 * resolves with the file, or null when none was taken. */
export async function saveScreenshot(page: Page, name: string): Promise<string | null> {
  if (!screenshotsWanted) return null
  mkdirSync(screenshotDir, { recursive: true })
  const file = join(screenshotDir, `${name}.png`)
  await page.screenshot({ path: file })
  return file
}

/** expect.poll with a patience that suits a browser (the default one second does not). */
export function eventually<T>(read: () => Promise<T> | T) {
  return expect.poll(read, { timeout: 15_000, interval: 100 })
}
