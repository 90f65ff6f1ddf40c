import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { databaseFileName, openDatabase } from '../../src/main/db'
import { createMemoryStore } from '../../src/main/secrets'
import { unwrap } from '../../src/shared/result'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { callApi, useTestConsole } from '../support/console'
import { inFirstScreen } from '../support/layout'
import { useTempDir } from '../support/temp'

/** Issue 32.4 at a glance: a console whose public URL has failed its checks for 25 h (recorded
 * before a restart, failing again after it) shows the endpoint at risk on the Overview's first
 * screen at 1024×768, with the deadline, and the warning among the open incidents. */

const rendererDir = join(import.meta.dirname, '..', '..', 'out', 'renderer')
const hour = 3_600_000

async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

describe('the endpoint-disablement watch on the Overview, in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())

  it('shows an endpoint at risk of disablement, with its deadline, on the first screen at 1024×768', async () => {
    const dir = tempDir()
    const now = Date.now()
    const db = unwrap(openDatabase(join(dir, databaseFileName)))
    db.prepare(
      "INSERT INTO reachability_outages (cause, started_at, seen_at, ended_at, detail) VALUES ('public_url', ?, ?, NULL, 'public URL check: nothing accepted a connection')",
    ).run(now - 25 * hour, now - 10_000)
    db.close()
    const configFile = join(dir, 'overlay.json')
    writeFileSync(
      configFile,
      JSON.stringify({ listener: { publicUrl: `https://127.0.0.1:${await deadPort()}/webhooks` } }),
    )
    const secrets = createMemoryStore({
      'webhook-secret:wh_7f3a9c2e1b4d6a80': 'whsec_e2e_disable_0123456789',
    })
    const c = await startConsole({ dataDir: dir, configFile, secrets, rendererDir })
    await eventually(
      async () => (await callApi(c, 'disablement.status')).json.value.endpoints[0]?.state,
    ).toBe('at_risk')

    const page = await openPage({ width: 1024, height: 768 })
    await page.goto(`${c.launchUrl}#/overview`)
    // In the Public URL tile: the reachability it is about, no row added to the Overview.
    const tile = page.getByRole('region', { name: 'Public URL' }).getByLabel('Endpoint deadlines')
    await eventually(() => tile.locator('.status').first().textContent()).toBe('disablement risk')
    expect(await tile.getByLabel('endpoint wh_7f3a9c2e1b4d6a80: at risk').count()).toBe(1)
    expect(await tile.textContent()).toMatch(
      /Marked failed at \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 1 h 3\d min\)/,
    )
    const incidents = page.getByRole('region', { name: 'Incidents' })
    await eventually(() => incidents.textContent()).toContain(
      'Endpoint wh_7f3a9c2e1b4d6a80: deliveries marked failed at',
    )
    expect(await inFirstScreen(tile), 'the tile visible without scrolling').toBe(true)
    await saveScreenshot(page, 'overview-disablement-1024x768')
  })
})
