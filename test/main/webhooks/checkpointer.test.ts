import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import type { Logger } from '../../../src/main/log'
import { checkpointWorkerFile, superviseCheckpointer } from '../../../src/main/webhooks/checkpointer'
import type { SupervisedCheckpointer } from '../../../src/main/webhooks/checkpointer'
import type { CheckpointReply } from '../../../src/main/webhooks/checkpoint-protocol'
import { retentionRules } from '../../../src/main/contributions'
import { openDatabase } from '../../../src/main/db'
import { pruneBatch, saveRetentionStatement, emptyRetentionState } from '../../../src/main/db/retention'
import { createCommitTransaction } from '../../../src/main/webhooks/commit-transaction'
import { createPruneSteps } from '../../../src/main/webhooks/prune-steps'
import type { PruneStatement } from '../../../src/main/db/retention'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { dayMs, eventParams } from '../db/retention-fixture'
import { upsertEventSql } from '../../../src/main/webhooks/sql'

/** The retention checkpointer thread, as the commit worker starts it: a real thread running
 * checkpoint-worker.ts on a real WAL database, under the worker supervisor (issue 33.5). */

function recordingLogger(lines: string[]): Logger {
  const logger: Logger = {
    debug: () => {},
    info: (msg) => void lines.push(`info ${msg}`),
    warn: (msg, fields) => void lines.push(`warn ${msg} ${JSON.stringify(fields ?? {})}`),
    error: (msg, fields) => void lines.push(`error ${msg} ${JSON.stringify(fields ?? {})}`),
    child: () => logger,
    file: null,
  }
  return logger
}

const ask = (checkpointer: SupervisedCheckpointer) =>
  new Promise<CheckpointReply>((resolve) => checkpointer.checkpoint(resolve))

function walDatabase(file: string): Database.Database {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('wal_autocheckpoint = 0')
  db.exec('CREATE TABLE t (x)')
  for (let i = 0; i < 50; i++) db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(500))
  return db
}

describe('the checkpointer thread under the worker supervisor', () => {
  const tempDir = useTempDir()
  const started: SupervisedCheckpointer[] = []
  afterEach(async () => {
    for (const c of started.splice(0)) await c.close()
  })

  it('runs a passive checkpoint of the WAL on its own thread', async () => {
    const file = join(tempDir(), 'watchdesk.db')
    const db = walDatabase(file)
    const checkpointer = superviseCheckpointer(file, recordingLogger([]))!
    started.push(checkpointer)
    const reply = await ask(checkpointer)
    expect(reply).toMatchObject({ ok: true, complete: true })
    expect(reply.ok && reply.walPages).toBeGreaterThan(0)
    db.close()
  })

  it('starts again after its thread died: a checkpoint asked meanwhile fails (the commit worker runs it), later ones run on the thread', async () => {
    const file = join(tempDir(), 'watchdesk.db')
    const lines: string[] = []
    // No database yet: the thread's start fails (fileMustExist) and the thread ends.
    const checkpointer = superviseCheckpointer(file, recordingLogger(lines))!
    started.push(checkpointer)
    const meanwhile = await ask(checkpointer)
    expect(meanwhile.ok).toBe(false)
    await waitFor(
      () => lines.some((l) => l.startsWith('warn the checkpointer thread stopped')),
      'the log line',
      {
        timeoutMs: 20_000,
      },
    )
    const db = walDatabase(file)
    // The supervisor starts it again (back-off up to 5 s); once up, checkpoints run there again.
    const reply = await waitFor(
      async () => {
        const r = await ask(checkpointer)
        return r.ok ? r : null
      },
      'a checkpoint on the restarted thread',
      { timeoutMs: 30_000 },
    )
    expect(reply).toMatchObject({ ok: true, complete: true })
    expect(checkpointer.running()).toBe(true)
    db.close()
  })

  it('starts its thread with the first checkpoint asked, not before, and none once closed', async () => {
    const file = join(tempDir(), 'watchdesk.db')
    const db = walDatabase(file)
    const checkpointer = superviseCheckpointer(file, recordingLogger([]))!
    started.push(checkpointer)
    expect(checkpointer.running()).toBe(false)
    expect(await ask(checkpointer)).toMatchObject({ ok: true, complete: true })
    expect(checkpointer.running()).toBe(true)
    await checkpointer.close()
    expect(checkpointer.running()).toBe(false)
    // Closed: the commit worker runs the checkpoint itself (prune-steps falls back on a failed reply).
    expect(await ask(checkpointer)).toEqual({ ok: false, message: 'the checkpointer is closed' })
    expect(checkpointer.running()).toBe(false)
    db.close()
  })

  it('a retention pass that removes nothing starts no thread; the first pass that removes rows starts it and checkpoints there', async () => {
    const file = join(tempDir(), 'watchdesk.db')
    const opened = openDatabase(file)
    if (!opened.ok) throw new Error(opened.error.message)
    const db = opened.value
    const now = Date.now()
    const upsert = db.prepare(upsertEventSql)
    for (let i = 0; i < 50; i++) upsert.run(eventParams(`evt_${i}`, now - (i < 30 ? 100 : 1) * dayMs))
    const checkpointer = superviseCheckpointer(file, recordingLogger([]))!
    started.push(checkpointer)
    // As the commit worker wires them: the checkpointer made on the first step.
    const steps = createPruneSteps({
      db,
      transaction: createCommitTransaction(db),
      checkpointer: () => checkpointer,
      wake: () => {},
    })
    // The commit worker's loop: a step whenever one is due, until `done` holds.
    const drive = (done: () => boolean, what: string) =>
      waitFor(
        () => {
          if (steps.pending()) steps.step(() => false)
          return done()
        },
        what,
        { timeoutMs: 30_000 },
      )
    // Retention idle: nothing due or running, and the connection's automatic checkpoint back.
    const idle = () => !steps.pending() && db.pragma('wal_autocheckpoint', { simple: true }) === 1000
    const run = async (statements: PruneStatement[]) => {
      let settled = false
      const reply = steps.add(statements).finally(() => (settled = true))
      await drive(() => settled && idle(), 'the batch and its checkpoints')
      return reply
    }
    // Every kind older than 200 days (none) and the state saved: what a young database's pass does.
    for (const kind of ['events', 'attempts', 'alerts', 'rejections'] as const)
      expect(await run(pruneBatch(retentionRules, kind, now - 200 * dayMs, 1_000))).toEqual({
        ok: true,
        changes: 0,
      })
    expect(await run(saveRetentionStatement(emptyRetentionState()))).toEqual({ ok: true, changes: 0 })
    expect(steps.counts()).toMatchObject({ steps: 5, checkpointsElsewhere: 0, checkpointsHere: 0 })
    expect(checkpointer.running()).toBe(false)

    // Events older than 90 days: 30 removed, their pages checkpointed on the thread.
    expect(await run(pruneBatch(retentionRules, 'events', now - 90 * dayMs, 1_000))).toEqual({
      ok: true,
      changes: 30,
    })
    await drive(() => steps.counts().checkpointsElsewhere >= 1 && idle(), 'its checkpoint')
    expect(steps.counts().checkpointsHere).toBe(0)
    expect(checkpointer.running()).toBe(true)
    db.close()
  })

  it('is none when its module is missing, and says so', () => {
    const lines: string[] = []
    expect(superviseCheckpointer('/nowhere.db', recordingLogger(lines), null)).toBeNull()
    expect(lines).toEqual([expect.stringContaining('checkpoint-worker.js is missing')])
    // Under vitest: the run's bundled entry (test/support/worker-bundles.ts) or the source.
    expect(checkpointWorkerFile()).toMatch(/checkpoint-worker\.(js|ts)$/)
  })
})
