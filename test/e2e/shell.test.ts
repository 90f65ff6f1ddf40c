import { describe, expect, it } from 'vitest'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import type { RunningConsole } from '../../src/main/serve'
import { useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'

describe('the console shell in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // One page for the file: each test loads a console's document in it.
  const openPage = useSharedPage(useChromium())
  // The token, the views and the reload are looked at on one console (a start and a close of the
  // back end and its worker threads fewer per test); the refusal without the token has its own, an
  // origin the page never had the token for.
  const fileDir = useTempDir('watchdesk-test-', { per: 'file' })
  const startFileConsole = useTestConsole({ per: 'file' })
  let fileConsole: Promise<RunningConsole> | undefined
  const sharedConsole = () => (fileConsole ??= startFileConsole({ dataDir: fileDir() }))

  it('loads with the launch token, takes the token out of the address bar, and shows the back end running', async () => {
    const c = await sharedConsole()
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(c.launchUrl)
    await eventually(() => page.locator('.sidebar-foot').textContent()).toMatch(/back end 0\.\d+\.\d+/)
    expect(page.url()).not.toContain('token=')
    await page
      .locator('.sidebar')
      .getByRole('link', { name: /Settings/ })
      .click()
    await eventually(() => page.locator('main h1').textContent()).toBe('Settings')
    await eventually(() => page.locator('.facts').first().textContent()).toContain(c.backend.context.dataDir)
    await saveScreenshot(page, 'shell-settings-1280x800')
  })

  it('navigates every view by link and by its digit key', async () => {
    const c = await sharedConsole()
    const page = await openPage({ width: 1280, height: 800 })
    // The document the test before left is this console's (run alone, the test loads it).
    if (!page.url().startsWith(`${c.url}/`)) await page.goto(c.launchUrl)
    await eventually(() => page.locator('.sidebar-foot').textContent()).toMatch(/back end/)
    for (const [key, title] of [
      ['2', 'Events'],
      ['3', 'Chains'],
      ['4', 'Wallets'],
      ['5', 'Alerts'],
      ['6', 'Settings'],
      ['1', 'Overview'],
    ]) {
      await page.keyboard.press(key!)
      await eventually(() => page.locator('main h1').textContent()).toBe(title)
      await eventually(() => page.locator('[aria-current="page"]').textContent()).toContain(title)
    }
    await page
      .locator('.sidebar')
      .getByRole('link', { name: /Chains/ })
      .click()
    await eventually(() => page.locator('main h1').textContent()).toBe('Chains')
  })

  it('keeps the token for a reload of the same tab', async () => {
    const c = await sharedConsole()
    const page = await openPage()
    // The document the tests before left is this console's, opened in this tab with the launch
    // token (run alone, the test loads it).
    if (!page.url().startsWith(`${c.url}/`)) await page.goto(c.launchUrl)
    await eventually(() => page.locator('.sidebar-foot').textContent()).toMatch(/back end/)
    expect(page.url()).not.toContain('token=')
    await page.reload()
    await eventually(() => page.locator('.sidebar-foot').textContent()).toMatch(/back end/)
  })

  it('refuses a page opened without the token, and its API requests', async () => {
    const c = await startConsole({ dataDir: tempDir() })
    const page = await openPage()
    await page.goto(`${c.url}/`)
    await eventually(() => page.getByRole('alert').textContent()).toMatch(/needs its launch token/)
    const status = await page.evaluate(async () => (await fetch('/api/health')).status)
    expect(status).toBe(401)
    await saveScreenshot(page, 'shell-no-token')
  })
})
