import { retentionRules } from '../../../src/main/contributions'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { RetentionConfig } from '../../../src/shared/config'
import {
  emptyRetentionState,
  pruneBatch,
  readRetentionState,
  sqliteRetentionTarget,
  startRetention,
} from '../../../src/main/db/retention'
import { workerCommitter } from '../../../src/main/webhooks'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { counts, dayMs, eventIds, eventParams, seedRetention } from './retention-fixture'

describe('retention on SQLite, through the commit worker', () => {
  const tempDir = useTempDir('watchdesk-retention-')

  it('removes exactly what is past its age, keeps queued and open-incident events, while deliveries keep committing', async () => {
    const opened = openDatabase(join(tempDir(), 'watchdesk.db'))
    if (!opened.ok) throw new Error(opened.error.message)
    const db = opened.value
    const now = Date.now()
    const seeded = seedRetention(db, now)
    const before = counts(db)
    const committer = workerCommitter(db.name)
    // Deliveries committed through the same worker during the whole run.
    const committed: string[] = []
    let delivering = true
    let n = 0
    const deliveries = (async () => {
      while (delivering) {
        const batch = Array.from({ length: 5 }, () => eventParams(`evt_live_${n++}`, Date.now()))
        const result = await committer.commit(batch, [])
        if (!result.ok) throw new Error(result.failure.message)
        committed.push(...batch.map((e) => e.id))
      }
    })()
    await waitFor(() => committed.length > 0, 'the first delivery committed', { timeoutMs: 30_000 })
    const committedBefore = committed.length
    const batches: number[] = []
    const retention = startRetention({
      config: () => RetentionConfig.parse({}),
      target: sqliteRetentionTarget(retentionRules, async (statements) => {
        const done = await committer.prune!(statements)
        if (done.ok && statements.length > 2) batches.push(done.changes)
        return done.ok ? done : { ok: false, message: done.failure.message }
      }),
      initial: emptyRetentionState(),
      now: () => now,
      batchRows: 1_000,
    })
    const state = await retention.runNow()
    const committedDuringRetention = committed.length - committedBefore
    delivering = false
    await deliveries
    retention.stop()
    await committer.close()

    expect(state.error).toBeNull()
    expect(state.removed).toEqual({
      events: seeded.expiredEvents.length,
      attempts: seeded.expiredAttempts - 50, // the old events' attempts went with their events
      alerts: seeded.expiredAlertLog + seeded.expiredIncidents,
      rejections: seeded.expiredRejections,
    })
    // Small batches: none larger than the batch size, several of them.
    expect(Math.max(...batches)).toBeLessThanOrEqual(1_000)
    expect(batches.length).toBeGreaterThanOrEqual(5)
    expect(committedDuringRetention).toBeGreaterThan(0)

    const ids = eventIds(db)
    expect(seeded.expiredEvents.filter((id) => ids.has(id))).toEqual([])
    expect(
      [...seeded.keptOldEvents, ...seeded.recentEvents, ...committed].filter((id) => !ids.has(id)),
    ).toEqual([])
    const after = counts(db)
    expect(after.events).toBe(before.events - seeded.expiredEvents.length + committed.length)
    expect(after.attempts).toBe(seeded.keptAttempts)
    expect(after.alertLog).toBe(before.alertLog - seeded.expiredAlertLog)
    expect(after.incidents).toBe(before.incidents - seeded.expiredIncidents)
    expect(after.rejections).toBe(before.rejections - seeded.expiredRejections)
    expect(after.orphanOutbox).toBe(0)
    expect(after.orphanAttempts).toBe(0)
    // The state is stored for `watchdesk storage` in another process.
    expect(readRetentionState(db)).toMatchObject({
      lastRunAt: now,
      removed: state.removed,
      removedTotal: state.removed,
    })
    db.close()
  }, 120_000)

  it('keeps everything of a kind set to 0 days, and counts totals across runs', async () => {
    const opened = openDatabase(join(tempDir(), 'watchdesk.db'))
    if (!opened.ok) throw new Error(opened.error.message)
    const db = opened.value
    const now = Date.now()
    seedRetention(db, now, 100)
    const before = counts(db)
    const committer = workerCommitter(db.name)
    const run = async (statements: Parameters<NonNullable<typeof committer.prune>>[0]) => {
      const done = await committer.prune!(statements)
      return done.ok ? done : { ok: false as const, message: done.failure.message }
    }
    const keepEvents = RetentionConfig.parse({ events: { days: 0 } })
    const first = startRetention({
      config: () => keepEvents,
      target: sqliteRetentionTarget(retentionRules, run),
      initial: emptyRetentionState(),
      now: () => now,
    })
    const one = await first.runNow()
    first.stop()
    expect(one.removed.events).toBe(0)
    expect(counts(db).events).toBe(before.events)
    expect(one.removed.rejections).toBe(300)
    const second = startRetention({
      config: () => RetentionConfig.parse({}),
      target: sqliteRetentionTarget(retentionRules, run),
      initial: readRetentionState(db),
      now: () => now,
    })
    const two = await second.runNow()
    second.stop()
    await committer.close()
    expect(two.removed.events).toBe(101)
    expect(two.removed.rejections).toBe(0)
    expect(two.removedTotal).toMatchObject({ events: 101, rejections: 300 })
    db.close()
  }, 60_000)

  it('a retention batch yields to a commit posted behind it: the commit is stored before the batch ends', async () => {
    const opened = openDatabase(join(tempDir(), 'watchdesk.db'))
    if (!opened.ok) throw new Error(opened.error.message)
    const db = opened.value
    const now = Date.now()
    const old = 20_000
    db.prepare(
      `WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n + 1 < ?)
       INSERT INTO events (id, type, grp, created_at, received_at, last_delivery_at, body, data)
       SELECT 'evt_old_' || n, 'payout.completed', 'payout', '2026-01-01T00:00:00Z', ? + n, ? + n, X'7b7d', '{}' FROM i`,
    ).run(old, now - 100 * dayMs, now - 100 * dayMs)
    const committer = workerCommitter(db.name)
    const order: string[] = []
    // One batch asking for every old row, and a delivery posted right behind it.
    const batch = committer.prune!(pruneBatch(retentionRules, 'events', now - 90 * dayMs, old)).then((r) => {
      order.push('batch')
      return r
    })
    const commit = committer.commit([eventParams('evt_live', now)], []).then((r) => {
      order.push('commit')
      return r
    })
    const [pruned, committed] = await Promise.all([batch, commit])
    await committer.close()

    expect(committed.ok).toBe(true)
    // Before the change the worker ran the batch to its end first: ['batch', 'commit'].
    expect(order).toEqual(['commit', 'batch'])
    // The batch still removed all it asked for, in its steps.
    expect(pruned).toEqual({ ok: true, changes: old })
    expect(eventIds(db)).toEqual(new Set(['evt_live']))
    db.close()
  }, 60_000)
})
