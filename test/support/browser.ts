import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, inject } from 'vitest'
import { chromiumLaunchOptions } from './chromium-server'

export const screenshotDir = join(import.meta.dirname, '..', '..', 'test-results', 'screenshots')

/** This worker's connection to the e2e project's shared Chromium and its one page (see
 * useSharedPage), kept across the worker's files: the project runs its files in the same worker
 * one after another (`isolate: false`), and a page of its own per file cost more than loading the
 * next file's console into a page already open (a renderer process started, the tab and its frame
 * tree set up, then torn down: ~1 CPU-s in a script, ~0.4 a file in paired batches of the e2e
 * files; docs/benchmarks.md, session 12). */
interface WorkerChromium {
  browser: Browser
  page?: Page
  /** Origins the page has shown since its storage was last cleared (see handOver). */
  origins: Set<string>
}
let workerChromium: Promise<WorkerChromium> | undefined

async function connectedWorkerChromium(endpoint: string): Promise<WorkerChromium> {
  const current = await workerChromium?.catch(() => undefined)
  if (current?.browser.isConnected()) return current
  workerChromium = chromium.connect(endpoint).then((browser) => ({ browser, origins: new Set<string>() }))
  return workerChromium
}

/** Debian's Chromium, driven by playwright-core. Never downloads a browser. In the e2e project the
 * files share one Chromium started by the global setup (test/support/chromium-server.ts) and one
 * connection to it per worker; a file run alone elsewhere launches its own. Contexts a file opens
 * itself are closed after its last test (the worker's shared page stays, see useSharedPage). */
export function useChromium(): () => Browser {
  let browser: Browser | undefined
  let own = false
  let before = new Set<BrowserContext>()
  beforeAll(async () => {
    const endpoint = inject('chromiumEndpoint')
    own = !endpoint
    browser = endpoint
      ? (await connectedWorkerChromium(endpoint)).browser
      : await chromium.launch(chromiumLaunchOptions())
    before = new Set(browser.contexts())
  })
  afterAll(async () => {
    if (own) return browser?.close()
    const sharedContext = (await workerChromium)?.page?.context()
    const opened = browser?.contexts().filter((c) => !before.has(c) && c !== sharedContext) ?? []
    await Promise.all(opened.map((c) => c.close()))
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
 * viewport each test asks for; in the e2e project, the worker's one page, handed from file to
 * file. A test with a console of its own loads that console's document with `goto`, so it sees no
 * state of the test before it (its console listens on a port of its own, so its origin and session
 * storage are its own too); tests that share a console move between its views with `showView`.
 * A file receives the page on about:blank, with the storage of every origin it has shown cleared (a later console may listen on a port an earlier one had) and no listener an
 * earlier file left on it. Run alone outside the project, a file's page goes with its own
 * Chromium. */
export function useSharedPage(browser: () => Browser): (viewport?: Viewport) => Promise<Page> {
  let page: Page | undefined
  afterAll(async () => {
    if (!inject('chromiumEndpoint')) return page?.context().close()
    // The worker's page waits for the next file on about:blank, not on this file's last document,
    // whose console is gone (its timers and reconnect attempts would run until the next load).
    if (page && !page.isClosed()) await page.goto('about:blank').catch(() => undefined)
  })
  return async (viewport = { width: 1280, height: 720 }) => {
    if (page && !page.isClosed()) {
      await page.setViewportSize(viewport)
      return page
    }
    const shared = inject('chromiumEndpoint') ? await workerChromium : undefined
    page = shared ? await handOver(shared, browser(), viewport) : await browser().newPage({ viewport })
    return page
  }
}

/** The worker's page for the next file: opened the first time, else emptied of what the files
 * before left (their listeners, their document, their origins' storage) and resized. */
async function handOver(shared: WorkerChromium, browser: Browser, viewport: Viewport): Promise<Page> {
  if (!shared.page || shared.page.isClosed()) {
    await shared.page?.context().close()
    const page = await browser.newPage({ viewport })
    page.on('framenavigated', (frame) => {
      const { origin } = new URL(frame.url())
      if (frame === page.mainFrame() && origin.startsWith('http')) shared.origins.add(origin)
    })
    shared.page = page
    return page
  }
  const page = shared.page
  for (const event of ['dialog', 'request', 'response', 'console', 'pageerror', 'popup'] as const)
    page.removeAllListeners(event)
  await page.goto('about:blank')
  const cdp = await page.context().newCDPSession(page)
  try {
    for (const origin of shared.origins)
      await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })
    shared.origins.clear()
  } finally {
    await cdp.detach()
  }
  await page.setViewportSize(viewport)
  return page
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

/** Shows `route` (`#/settings`, …) of console `c` in the page. When the page already shows that
 * console's document, only the hash changes: a same-document navigation, as a click on the nav
 * makes (the app took its token from the launch URL into session storage and out of the address
 * bar). Otherwise the console's launch URL is loaded. A load of the app costs Chromium ~0.7 CPU-s
 * more than a view change (docs/benchmarks.md, session 13), so tests that share a console move
 * between its views this way unless the load itself is what they test. */
export async function showView(
  page: Page,
  c: { url: string; launchUrl: string },
  route: string,
): Promise<void> {
  const here = page.url()
  const sameDocument = here.startsWith(`${c.url}/`) && !here.includes('?')
  await page.goto(sameDocument ? `${c.url}/${route}` : `${c.launchUrl}${route}`)
}
