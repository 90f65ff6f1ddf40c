import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { runMain } from '../../support/cli'
import { useServeProcess, postSigned } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { counts, eventIds, seedRetention } from '../db/retention-fixture'

const secret = 'whsec_retention_serve_5d02c7'
const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: secret }

async function deliver(listenerUrl: string, id: string): Promise<number> {
  const body = JSON.stringify({
    id,
    type: 'payout.completed',
    created_at: new Date().toISOString(),
    data: { id },
  })
  return postSigned(listenerUrl, secret, body)
}

describe('retention in bin/watchdesk serve', () => {
  const serve = useServeProcess()
  const tempDir = useTempDir('watchdesk-retention-serve-')

  it('runs at start while deliveries arrive, removes exactly what is past its age, and shows it in watchdesk storage and /metrics', async () => {
    const dataDir = tempDir()
    const opened = openDatabase(join(dataDir, 'watchdesk.db'))
    if (!opened.ok) throw new Error(opened.error.message)
    const seeded = seedRetention(opened.value, Date.now(), 20_000)
    const before = counts(opened.value)
    opened.value.close()

    const running = await serve(['--data-dir', dataDir], env)
    const listener = running.listenerUrl!
    const acknowledged: string[] = []
    let delivering = true
    let n = 0
    const load = (async () => {
      while (delivering) {
        const id = `evt_live_${n++}`
        if ((await deliver(listener, id)) === 200) acknowledged.push(id)
      }
    })()
    const state = await waitFor(
      async () => {
        const storage = await runMain(['storage', '--data-dir', dataDir, '--json'], env)
        const usage = JSON.parse(storage.stdout) as { retention: { lastRunAt: number | null } }
        return usage.retention.lastRunAt !== null ? usage : undefined
      },
      'the start-up retention run in watchdesk storage',
      { timeoutMs: 60_000 },
    )
    await waitFor(() => acknowledged.length >= 20, '20 acknowledged deliveries', { timeoutMs: 30_000 })
    delivering = false
    await load

    expect(state).toMatchObject({
      retention: {
        removed: {
          events: seeded.expiredEvents.length,
          alerts: seeded.expiredAlertLog + seeded.expiredIncidents,
          rejections: seeded.expiredRejections,
        },
        error: null,
      },
    })
    const text = await runMain(['storage', '--data-dir', dataDir], env)
    expect(text.stdout).toMatch(
      new RegExp(
        `^removed \\(last run\\)\\s+events ${seeded.expiredEvents.length}, attempts \\d+, alerts 51, rejections 300$`,
        'm',
      ),
    )
    expect(text.stdout).toMatch(/^retention next run\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/m)

    const metrics = await (
      await fetch(`${running.consoleUrl}/metrics`, { headers: { authorization: `Bearer ${running.token}` } })
    ).text()
    expect(metrics).toContain(
      `watchdesk_retention_removed_rows{kind="events",run="last"} ${seeded.expiredEvents.length}`,
    )
    expect(metrics).toMatch(/^watchdesk_retention_next_run_timestamp_seconds \d{10}/m)

    const db = new BetterSqlite3(join(dataDir, 'watchdesk.db'), { readonly: true })
    try {
      const ids = eventIds(db)
      expect(seeded.expiredEvents.filter((id) => ids.has(id))).toEqual([])
      expect(
        [...seeded.keptOldEvents, ...seeded.recentEvents, ...acknowledged].filter((id) => !ids.has(id)),
      ).toEqual([])
      const after = counts(db)
      expect(after.attempts).toBe(seeded.keptAttempts)
      expect(after.rejections).toBe(before.rejections - seeded.expiredRejections)
    } finally {
      db.close()
    }
  }, 180_000)
})
