import { chromium } from 'playwright-core'
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
]

export const chromiumPath = () => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Global setup of the e2e project: one Chromium for every file instead of one per file (a start
 * costs about a second on a loaded machine). Files never share a page or a context: each opens
 * its own (`browser.newPage()` is a fresh context), so they cannot see each other's state. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await chromium.launchServer({ executablePath: chromiumPath(), args: chromiumArgs })
  project.provide('chromiumEndpoint', server.wsEndpoint())
  return () => server.close()
}
