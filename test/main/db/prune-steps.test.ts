import { retentionRules } from '../../../src/main/contributions'
import { copyFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { Database } from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { pruneBatch } from '../../../src/main/db/retention'
import type { CheckpointReply } from '../../../src/main/webhooks/checkpoint-protocol'
import { superviseCheckpointer } from '../../../src/main/webhooks/checkpointer'
import { silentLogger } from '../../../src/main/log'
import { createCommitTransaction } from '../../../src/main/webhooks/commit-transaction'
import {
  createPruneSteps,
  pruneCheckpointRows,
  maxFinalCheckpoints,
  pruneStepRows,
  retentionAutocheckpointPages,
} from '../../../src/main/webhooks/prune-steps'
import type { Checkpointer } from '../../../src/main/webhooks/prune-steps'
import { useTempDir } from '../../support/temp'
import { dayMs, eventIds } from './retention-fixture'

const oldRows = 2_000

function seeded(dir: string): Database {
  const opened = openDatabase(join(dir, 'watchdesk.db'))
  if (!opened.ok) throw new Error(opened.error.message)
  const db = opened.value
  const old = Date.now() - 100 * dayMs
  db.prepare(
    `WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n + 1 < ?)
     INSERT INTO events (id, type, grp, created_at, received_at, last_delivery_at, body, data)
     SELECT 'evt_old_' || n, 'payout.completed', 'payout', '2026-01-01T00:00:00Z', ? + n, ? + n, X'7b7d', '{}' FROM i`,
  ).run(oldRows, old, old)
  return db
}

/** A checkpointer that holds each request until the test answers it. */
function heldCheckpointer(log: string[]) {
  const held: Parameters<Checkpointer['checkpoint']>[0][] = []
  const reply = (ok: boolean, complete = true): CheckpointReply =>
    ok ? { ok: true, walPages: 100, complete } : { ok: false, message: 'the checkpointer stopped' }
  const checkpointer: Checkpointer = {
    checkpoint(done) {
      log.push('checkpoint asked')
      held.push(done)
    },
  }
  const answer = (ok: boolean, complete = true) => {
    log.push('checkpoint done')
    held.shift()!(reply(ok, complete))
  }
  return { checkpointer, held, answer }
}

describe('retention steps in the commit worker (prune-steps)', () => {
  const tempDir = useTempDir('watchdesk-prune-steps-')

  /** A seeded database and retention steps over it whose checkpoints wait for the test's answer;
   * `log` records the checkpoints asked and done, the worker's wake-ups and the steps. */
  function stepsWithHeldCheckpointer() {
    const db = seeded(tempDir())
    const log: string[] = []
    const { checkpointer, held, answer } = heldCheckpointer(log)
    const steps = createPruneSteps({
      db,
      transaction: createCommitTransaction(db),
      checkpointer: () => checkpointer,
      wake: () => log.push('wake'),
      onStep: () => log.push('step'),
    })
    return { db, log, held, answer, steps }
  }

  it('a checkpoint runs on the checkpointer, never on the worker connection, and no step runs until it is done', async () => {
    const { db, log, held, answer, steps } = stepsWithHeldCheckpointer()
    const automaticAtSteps = new Set<number>()

    const reply = steps.add(pruneBatch(retentionRules, 'events', Date.now() - 90 * dayMs, oldRows))
    let stepsWhileHeld = 0
    while (steps.pending() || held.length > 0) {
      if (held.length > 0) {
        // Asked to step while a checkpoint runs elsewhere: nothing happens.
        expect(steps.pending()).toBe(false)
        const before = steps.counts().steps
        steps.step(() => false)
        stepsWhileHeld += steps.counts().steps - before
        answer(true)
        continue
      }
      steps.step(() => false)
      automaticAtSteps.add(db.pragma('wal_autocheckpoint', { simple: true }) as number)
    }

    expect(await reply).toEqual({ ok: true, changes: oldRows })
    expect(eventIds(db)).toEqual(new Set())
    const counts = steps.counts()
    expect(counts.checkpointsHere).toBe(0)
    expect(counts.checkpointsElsewhere).toBeGreaterThanOrEqual(
      Math.floor(oldRows / (pruneCheckpointRows + pruneStepRows)),
    )
    expect(stepsWhileHeld).toBe(0)
    // Every checkpoint asked is answered before the next step, and each answer wakes the worker.
    const order = log.filter((l) => l !== 'wake')
    for (let i = 0; i < order.length; i++)
      if (order[i] === 'checkpoint asked') expect(order[i + 1]).toBe('checkpoint done')
    expect(log.filter((l) => l === 'wake')).toHaveLength(counts.checkpointsElsewhere)
    // The worker connection's own automatic checkpoint was held back at every step, and is back after.
    expect(automaticAtSteps).toEqual(new Set([retentionAutocheckpointPages]))
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    db.close()
  })

  it('the automatic checkpoint comes back only after a checkpoint that completed, asked again a few times at most', async () => {
    const { db, held, answer, steps } = stepsWithHeldCheckpointer()
    const automatic = () => db.pragma('wal_autocheckpoint', { simple: true }) as number
    // A batch of one step's rows: one step, then its final checkpoint.
    const reply = steps.add(pruneBatch(retentionRules, 'events', Date.now() - 90 * dayMs, 100))
    const drive = () => {
      while (steps.pending()) steps.step(() => false)
    }
    drive()
    expect(await reply).toEqual({ ok: true, changes: 100 })
    expect(held).toHaveLength(1)
    // Commits came during it: not complete. Held back still, and asked once more.
    answer(true, false)
    expect(automatic()).toBe(retentionAutocheckpointPages)
    drive()
    expect(held).toHaveLength(1)
    answer(true, true)
    expect(automatic()).toBe(1000)
    expect(steps.pending()).toBe(false)
    expect(steps.counts().checkpointsElsewhere).toBe(2)

    // A checkpoint that never completes (a reader's snapshot holds it): asked again at most
    // maxFinalCheckpoints times, then the automatic checkpoint comes back anyway.
    const second = steps.add(pruneBatch(retentionRules, 'events', Date.now() - 90 * dayMs, 100))
    drive()
    await second
    let answered = 0
    while (held.length > 0) {
      answer(true, false)
      answered++
      drive()
    }
    expect(answered).toBe(1 + maxFinalCheckpoints)
    expect(automatic()).toBe(1000)
    db.close()
  })

  it('a checkpointer that fails: that checkpoint runs on the worker connection, and the batch completes', async () => {
    const { db, held, answer, steps } = stepsWithHeldCheckpointer()
    const reply = steps.add(pruneBatch(retentionRules, 'events', Date.now() - 90 * dayMs, oldRows))
    while (steps.pending() || held.length > 0) {
      if (held.length > 0) answer(false)
      else steps.step(() => false)
    }
    expect(await reply).toEqual({ ok: true, changes: oldRows })
    const counts = steps.counts()
    expect(counts.checkpointsHere).toBe(counts.checkpointsElsewhere)
    expect(counts.checkpointsHere).toBeGreaterThan(0)
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    db.close()
  })

  it('without a checkpointer thread, the checkpoints run on the worker connection and its automatic checkpoint stays on', async () => {
    const db = seeded(tempDir())
    const steps = createPruneSteps({
      db,
      transaction: createCommitTransaction(db),
      checkpointer: () => null,
      wake: () => {},
    })
    const reply = steps.add(pruneBatch(retentionRules, 'events', Date.now() - 90 * dayMs, oldRows))
    const automatic = new Set<number>()
    while (steps.pending()) {
      steps.step(() => false)
      automatic.add(db.pragma('wal_autocheckpoint', { simple: true }) as number)
    }
    expect(await reply).toEqual({ ok: true, changes: oldRows })
    expect(steps.counts().checkpointsHere).toBeGreaterThanOrEqual(
      Math.floor(oldRows / (pruneCheckpointRows + pruneStepRows)),
    )
    expect(steps.counts().checkpointsElsewhere).toBe(0)
    expect(automatic).toEqual(new Set([1000]))
    db.close()
  })

  it('the checkpointer thread moves the WAL into the database file from its own connection', async () => {
    const dir = tempDir()
    const db = seeded(dir)
    db.pragma('wal_autocheckpoint = 0')
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.prepare(`DELETE FROM events WHERE id LIKE 'evt_old_1%'`).run()
    // The database file alone (without its WAL), as a copy: what a checkpoint has moved into it.
    const inFile = (name: string) => {
      copyFileSync(db.name, join(dir, name))
      const copy = new BetterSqlite3(join(dir, name), { readonly: true })
      const n = (
        copy.prepare(`SELECT count(*) AS n FROM events WHERE id LIKE 'evt_old_1%'`).get() as { n: number }
      ).n
      copy.close()
      return n
    }
    expect(inFile('before.db')).toBeGreaterThan(0)
    const thread = superviseCheckpointer(db.name, silentLogger)!
    const reply = await new Promise<CheckpointReply>((resolve) => thread.checkpoint(resolve))
    await thread.close()
    expect(reply).toMatchObject({ ok: true, complete: true })
    expect((reply as { walPages: number }).walPages).toBeGreaterThan(0)
    expect(inFile('after.db')).toBe(0)
    db.close()
  })
})
