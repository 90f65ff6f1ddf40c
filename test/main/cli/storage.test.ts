import { existsSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { upsertEventSql } from '../../../src/main/webhooks/sql'
import { runMain } from '../../support/cli'
import { useServeProcess } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { mountTmpfs } from '../db/tmpfs'

/** A data dir whose database holds events received at `times` (ms). */
function dataDirWithEvents(dataDir: string, times: number[]): void {
  const opened = openDatabase(join(dataDir, 'watchdesk.db'))
  if (!opened.ok) throw new Error(opened.error.message)
  const db = opened.value
  const insert = db.prepare(upsertEventSql)
  times.forEach((at, i) =>
    insert.get({
      id: `evt_storage_${i}`,
      type: 'payout.completed',
      grp: 'payout',
      created_at: new Date(at).toISOString(),
      created_ms: at,
      at,
      endpoint: 'env',
      data_id: null,
      body: Buffer.from(`{"id":"evt_storage_${i}"}`),
      data: '{}',
      conflicts: 0,
      conflict_body: null,
    }),
  )
  db.close()
}

describe('watchdesk storage', () => {
  const tempDir = useTempDir('watchdesk-storage-')
  const serve = useServeProcess()
  const tmpfs = mountTmpfs(8192)
  afterAll(() => {
    if (tmpfs.dir !== null) tmpfs.unmount()
  })

  it('says the data dir holds no database yet, and what creates one, without creating it (exit 3)', async () => {
    const dataDir = tempDir()
    const result = await runMain(['storage', '--data-dir', dataDir])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain(
      `${dataDir} holds no database yet: start watchdesk (serve, relay or the app)`,
    )
    expect(existsSync(join(dataDir, 'watchdesk.db'))).toBe(false)
  })

  it('prints the data dir size, database size, events stored, oldest event and free space', async () => {
    const dataDir = tempDir()
    const times = [Date.parse('2026-03-01T08:00:00Z'), Date.parse('2026-01-15T12:30:00Z'), Date.now()]
    dataDirWithEvents(dataDir, times)
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ storage: { warnFreeMb: 1 } }))
    const json = await runMain(['storage', '--data-dir', dataDir, '--json'])
    expect(json.stderr).toBe('')
    expect(json.code).toBe(0)
    const usage = JSON.parse(json.stdout)
    const databaseBytes = statSync(join(dataDir, 'watchdesk.db')).size
    expect(usage).toMatchObject({
      dataDir,
      events: 3,
      oldestEventAt: Date.parse('2026-01-15T12:30:00Z'),
      warnFreeMb: 1,
      warning: null,
    })
    expect(usage.databaseBytes).toBeGreaterThanOrEqual(databaseBytes)
    expect(usage.dataDirBytes).toBeGreaterThanOrEqual(usage.databaseBytes)
    expect(usage.freeBytes).toBeGreaterThan(0)

    const text = await runMain(['storage', '--data-dir', dataDir])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^events stored\s+3$/m)
    // As the console writes times, in the machine's zone (said once, in the last line).
    expect(text.stdout).toMatch(/^oldest event\s+2026-01-1[45] \d{2}:\d{2}:00$/m)
    expect(text.stdout).toMatch(/^times in\s+UTC/m)
    expect(text.stdout).toMatch(/^free space\s+\S+ \S+ \(warning below 1 MB\)$/m)
  })

  it.skipIf(tmpfs.dir === null)(
    'warns (exit 1, with the fix) when free space on the data dir disk is below storage.warnFreeMb, not above it',
    async () => {
      const dataDir = join(tmpfs.dir!, 'data')
      dataDirWithEvents(dataDir, [Date.now()])
      // An 8 MB disk: 100 MB is more than it has, 1 MB less than it has free.
      writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ storage: { warnFreeMb: 100 } }))
      const low = await runMain(['storage', '--data-dir', dataDir])
      expect(low.code).toBe(1)
      expect(low.stdout).toMatch(/^free space\s+.* LOW \(warning below 100 MB\)$/m)
      expect(low.stdout).toMatch(
        /warning: Only .* free on the disk of .* \(warning below 100 MB, storage\.warnFreeMb\): free space/,
      )
      const lowJson = await runMain(['storage', '--data-dir', dataDir, '--json'])
      expect(lowJson.code).toBe(1)
      expect(JSON.parse(lowJson.stdout).freeBytes).toBeLessThanOrEqual(8 * 1024 * 1024)
      expect(lowJson.stderr).toMatch(/storage\.warnFreeMb/)

      writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ storage: { warnFreeMb: 1 } }))
      const fine = await runMain(['storage', '--data-dir', dataDir, '--json'])
      expect(fine.code).toBe(0)
      expect(JSON.parse(fine.stdout).warning).toBeNull()
    },
  )

  it.skipIf(tmpfs.dir === null)(
    "the console's storage status carries the low-space warning while writes still go through",
    async () => {
      const dataDir = join(tmpfs.dir!, 'console')
      dataDirWithEvents(dataDir, [Date.now()])
      writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ storage: { warnFreeMb: 100 } }))
      const running = await serve(['--data-dir', dataDir])
      const status = await (
        await fetch(`${running.consoleUrl}/api/call/storage.status`, {
          method: 'POST',
          headers: { authorization: `Bearer ${running.token}` },
        })
      ).json()
      expect(status).toMatchObject({ ok: true, value: { state: 'ok' } })
      expect(status.value.lowSpace).toMatch(
        /^Only .* free on the disk of .*storage\.warnFreeMb\): free space/,
      )

      const roomy = tempDir()
      dataDirWithEvents(roomy, [Date.now()])
      writeFileSync(join(roomy, 'config.json'), JSON.stringify({ storage: { warnFreeMb: 1 } }))
      const fine = await serve(['--data-dir', roomy])
      const fineStatus = await (
        await fetch(`${fine.consoleUrl}/api/call/storage.status`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fine.token}` },
        })
      ).json()
      expect(fineStatus.value.lowSpace ?? null).toBeNull()
    },
  )
})
