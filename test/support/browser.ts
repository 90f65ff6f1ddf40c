import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect } from 'vitest'

export const screenshotDir = join(import.meta.dirname, '..', '..', 'test-results', 'screenshots')

/** Debian's Chromium, driven by playwright-core. Never downloads a browser. */
export function useChromium(): () => Browser {
  let browser: Browser | undefined
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-quic',
        '--no-first-run',
        '--disable-sync',
      ],
    })
  })
  afterAll(async () => {
    await browser?.close()
  })
  return () => {
    if (!browser) throw new Error('Chromium did not start')
    return browser
  }
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true })
  const file = join(screenshotDir, `${name}.png`)
  await page.screenshot({ path: file })
  return file
}

/** expect.poll with a patience that suits a browser (the default one second does not). */
export function eventually<T>(read: () => Promise<T> | T) {
  return expect.poll(read, { timeout: 15_000, interval: 100 })
}
