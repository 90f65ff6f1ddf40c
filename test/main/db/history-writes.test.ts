import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { createChainHistory } from '../../../src/main/chains/history'
import type { Sample } from '../../../src/main/chains/monitor'
import { createStorageHealth, openDatabase } from '../../../src/main/db'
import { silentLogger } from '../../../src/main/log'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

const sample = (serviceId: number, t: number): Sample => ({
  serviceId,
  t,
  status: 'healthy',
  head: 1,
  ageMs: 800,
  lagBlocks: 0,
  lagMs: 0,
  latencyMs: 20,
  error: null,
})
const round = (t: number) => [1, 10, 137].map((id) => sample(id, t))
const rows = (db: BetterSqlite3.Database) =>
  (db.prepare('SELECT count(*) AS n FROM chain_samples').get() as { n: number }).n

describe('chain sample writes', () => {
  const tempDir = useTempDir()

  it('write the poll rounds of a flush interval in one transaction, and a query sees queued ones', () => {
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    let clock = 1_000_000
    const history = createChainHistory(db, {
      storage: createStorageHealth(db.name, silentLogger),
      flushEveryMs: 30_000,
      now: () => clock,
    })
    for (let i = 0; i < 5; i++, clock += 5_000) history.record(round(clock))
    expect(rows(db)).toBe(0)
    clock += 10_000
    history.record(round(clock))
    expect(rows(db)).toBe(18)
    expect(history.history(137, 60, clock).points).toHaveLength(6)
    db.close()
  })

  it('never throw while the database is locked: the failure is a storage state, the samples wait, and are written once it frees', () => {
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    db.pragma('busy_timeout = 0')
    const storage = createStorageHealth(db.name, silentLogger)
    let clock = 1_000_000
    const history = createChainHistory(db, { storage, flushEveryMs: 0, now: () => clock })
    const other = new BetterSqlite3(db.name)
    other.exec('BEGIN IMMEDIATE')
    expect(() => history.record(round(clock))).not.toThrow()
    clock += 5_000
    expect(() => history.record(round(clock))).not.toThrow()
    expect(history.compact(clock)).toEqual({ folded: 0, dropped: 0 })
    expect(storage.status()).toMatchObject({ state: 'locked', code: 'SQLITE_BUSY', failures: 3 })
    other.exec('ROLLBACK')
    other.close()
    clock += 5_000
    history.record(round(clock))
    expect(rows(db)).toBe(9)
    expect(storage.status().state).toBe('ok')
    db.close()
  })
})
