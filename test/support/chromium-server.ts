import { join } from 'node:path'
import { chromium } from 'playwright-core'
import type { LaunchOptions } from 'playwright-core'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The WebSocket address of the one Chromium the end-to-end files share (see useChromium). */
    chromiumEndpoint: string
  }
}

export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
  // Two renderer processes a page that the tests never use, each started with every new page:
  // the omnibox popup's WebUI (preloaded per window, headless or not) and the spare renderer kept
  // ready for the next tab. Without them a page costs Chromium about 2.3 s of CPU instead of 3.5 s
  // (a page of the app opened and closed, loaded machine), a reload 0.8 s instead of 1.1 s.
  // Merged with Playwright's own list by test/support/chromium-launcher.sh.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,SpareRendererForSitePerProcess',
]

export const chromiumPath = () => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** How the tests start Chromium: through the launcher that merges the feature switches. */
export function chromiumLaunchOptions(): LaunchOptions {
  return {
    executablePath: join(import.meta.dirname, 'chromium-launcher.sh'),
    args: chromiumArgs,
    env: { ...process.env, WATCHDESK_CHROMIUM_BINARY: chromiumPath() },
  }
}

/** Global setup of the e2e project: one Chromium for every file instead of one per file (a start
 * costs about a second on a loaded machine). Files never share a page or a context: each opens
 * its own (`browser.newPage()` is a fresh context), so they cannot see each other's state. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer(chromiumLaunchOptions())
  project.provide('chromiumEndpoint', server.wsEndpoint())
  return () => server.close()
}
