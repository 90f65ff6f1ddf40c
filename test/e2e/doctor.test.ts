import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'

/** A keychain that cannot be reached (no Secret Service), as on a headless machine. */
function unreachableKeychain() {
  const message = 'The OS keychain is not reachable (Cannot autolaunch D-Bus without X11 $DISPLAY).'
  const refused = { ok: false as const, error: { code: 'keychain_unavailable' as const, message } }
  return {
    ...createMemoryStore(),
    get: async () => refused,
    list: async () => refused,
    status: async () => ({ reachable: false, backend: 'keychain' as const, message }),
  }
}

describe('first run and Settings → Doctor in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())

  it('says the keychain problem once, "blocked by: keychain" on what it blocks, and the doctor lists every check with its fix', async () => {
    // The environment of an ssh session: no session bus.
    const env = { ...process.env }
    delete env.DBUS_SESSION_BUS_ADDRESS
    const c = await startConsole({ dataDir: tempDir(), secrets: unreachableKeychain(), env })
    const page = await openPage({ width: 1024, height: 768 })
    await page.goto(c.launchUrl)
    const firstRun = page.getByRole('region', { name: 'First run' })
    await eventually(() => firstRun.textContent()).toContain('blocked by: keychain')
    const text = (await firstRun.textContent()) ?? ''
    expect(text.match(/Cannot autolaunch D-Bus/g)).toHaveLength(1)
    // Once on the whole page: "this console" shows the state, the checklist the cause.
    expect((await page.locator('main').textContent())!.match(/Cannot autolaunch D-Bus/g)).toHaveLength(1)
    expect(text.match(/blocked by: keychain/g)).toHaveLength(2)
    await saveScreenshot(page, 'first-run-blocked-1024x768')

    await page.keyboard.press('6')
    await eventually(() => page.locator('main h1').textContent()).toBe('Settings')
    const doctor = page.getByRole('region', { name: 'Doctor' })
    await doctor.getByRole('button', { name: 'Run the checks' }).click()
    await eventually(() => doctor.locator('.first-run-item').count()).toBeGreaterThan(5)
    const item = (label: string) =>
      doctor
        .locator('.first-run-item')
        .filter({ has: page.locator('.first-run-label', { hasText: new RegExp(`^${label}$`) }) })
    const keychain = item('Keychain')
    await eventually(() => keychain.textContent()).toContain('fail')
    const fix = await keychain.locator('.first-run-fix').textContent()
    expect(fix).toContain('export DBUS_SESSION_BUS_ADDRESS=$(dbus-daemon --session --fork --print-address)')
    expect(fix).toContain('gnome-keyring-daemon --replace --unlock')
    await eventually(() => item('Node access').textContent()).toContain('blocked by: keychain')
    // No sideways scroll at 1024 px.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await doctor.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'settings-doctor-1024x768')
  })
})
