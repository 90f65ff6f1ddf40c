import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { databaseFileName, openDatabase } from '../../src/main/db'
import type { Database } from '../../src/main/db'
import { createMemoryStore } from '../../src/main/secrets'
import { unwrap } from '../../src/shared/result'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { callApi, useTestConsole } from '../support/console'
import { inFirstScreen } from '../support/layout'
import { useTempDir } from '../support/temp'
import { waitFor } from '../support/wait'
import { exhaustDatabase, fillDisk, mountTmpfs } from '../main/db/tmpfs'

const rendererDir = join(import.meta.dirname, '..', '..', 'out', 'renderer')
const hour = 3_600_000
const endpoint = 'wh_full_disk_e2e_7b21'

async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/** Fills the disk, then the database's own free pages and WAL room, until a write is refused. */
function exhaust(db: Database, dir: string): void {
  fillDisk(join(dir, 'filler'))
  exhaustDatabase(db)
}

/** The 3 a.m. trial on the Overview: the public URL has been failing for 25 h and the console's
 * disk fills. The outage record cannot be saved; the Public URL tile keeps the deadline (from what
 * the watch sees) and says, in its note line, that the record is not durable and what to do. */
describe('the endpoint-disablement note on a full disk, on the Overview in Chromium', () => {
  const tmpfs = mountTmpfs(16_384)
  const skip = tmpfs.dir === null ? (tmpfs as { reason: string }).reason : ''
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())
  afterAll(() => {
    if (tmpfs.dir !== null) tmpfs.unmount()
  })

  it.skipIf(skip !== '')(
    'shows the deadline and the note that the outage record cannot be saved, on the first screen at 1024×768',
    async () => {
      const dir = tmpfs.dir!
      const now = Date.now()
      const db = unwrap(openDatabase(join(dir, databaseFileName)))
      db.prepare(
        "INSERT INTO reachability_outages (cause, started_at, seen_at, ended_at, detail) VALUES ('public_url', ?, ?, NULL, 'public URL check: nothing accepted a connection')",
      ).run(now - 25 * hour, now - 10_000)
      // The overlay lives off the full disk: it is this test's, not the console's to write.
      const configFile = join(tempDir(), 'overlay.json')
      const port = await deadPort()
      writeFileSync(
        configFile,
        JSON.stringify({ listener: { publicUrl: `https://127.0.0.1:${port}/webhooks` } }),
      )
      const secrets = createMemoryStore({ [`webhook-secret:${endpoint}`]: 'whsec_e2e_full_disk_0123456789' })
      const c = await startConsole({ dataDir: dir, configFile, secrets, rendererDir })
      await eventually(
        async () => (await callApi(c, 'disablement.status')).json.value.endpoints[0]?.state,
      ).toBe('at_risk')

      exhaust(db, dir)
      // The public URL now fails another way (a connection accepted and dropped, not refused): the
      // check's new message makes the watch look at once (and try to save what it saw), rather
      // than at its next 30 s look.
      const dropper = createServer((socket) => socket.destroy())
      await new Promise<void>((r) => dropper.listen(port, '127.0.0.1', () => r()))
      onTestFinished(() => new Promise<void>((r) => dropper.close(() => r())))
      await callApi(c, 'payments.publicUrl.check')
      const status = await waitFor(
        async () => {
          const value = (await callApi(c, 'disablement.status')).json.value
          return value.note !== null && value
        },
        'the note that the outage record cannot be saved',
        { timeoutMs: 60_000, intervalMs: 250 },
      )
      expect(status.note).toMatch(/^The outage record cannot be saved to the database \(.+\)/)
      expect(status.note).toContain('Free disk space in the data dir.')
      expect(status.endpoints[0]).toMatchObject({ endpoint, state: 'at_risk' })

      const page = await openPage({ width: 1024, height: 768 })
      await page.goto(`${c.launchUrl}#/overview`)
      const tile = page.getByRole('region', { name: 'Public URL' }).getByLabel('Endpoint deadlines')
      await eventually(() => tile.locator('.status').first().textContent()).toBe('disablement risk')
      const note = tile.locator('p.tile-problem', { hasText: 'The outage record cannot be saved' })
      await eventually(() => note.textContent()).toBe(status.note)
      expect(await tile.getByLabel(`endpoint ${endpoint}: at risk`).count()).toBe(1)
      expect(await inFirstScreen(note), 'the note visible without scrolling').toBe(true)
      // "This console" is not "ok" while its own data dir's disk is full: red, named, with the fix.
      const consoleTile = page.getByRole('region', { name: 'This console' })
      await eventually(() => consoleTile.locator('.tile-head .status').textContent()).toBe('disk full')
      expect(await consoleTile.getAttribute('class')).toContain('tile-bad')
      const storageFact = consoleTile.locator('.tile-fact', { hasText: 'data dir' }).locator('.status')
      expect(await storageFact.textContent()).toBe('disk full')
      expect(await storageFact.getAttribute('title')).toMatch(/disk/i)
      await saveScreenshot(page, 'overview-disablement-full-disk-1024x768')
      db.close()
    },
  )
})
