import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCommittedEvents } from '../../../src/main/committed'
import { createStorageHealth, databaseFileName, openDatabase } from '../../../src/main/db'
import type { Database } from '../../../src/main/db'
import { silentLogger } from '../../../src/main/log'
import { startReplaySentinel } from '../../../src/main/replay'
import type { ReplayAlert, ReplaySentinel } from '../../../src/main/replay'
import type { EventSummary } from '../../../src/shared/contract/events'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

const t0 = Date.parse('2026-11-28T03:00:00Z')
const summary: EventSummary = {
  seq: 1,
  id: 'evt_crash_between',
  type: 'funding.completed',
  group: 'payments',
  createdAt: new Date(t0).toISOString(),
  createdAtMs: t0,
  receivedAt: t0 + 1_000,
  lastDeliveryAt: t0 + 6_000,
  deliveries: 2,
  endpoint: 'wh_alpha',
  dataId: null,
  fundingLine: null,
  conflict: false,
  source: null,
}

/** Trial (issue 32.1 × the console killed mid-work): the process dies after the sentinel saw a
 * suspected replay and before its alert reached the alert outbox. The suspect's record and the
 * alert's outbox row must be one commit: a record without its alert would tell the next start
 * that the alert went out, and it never would. The death is the alert call failing (the code after
 * it never runs); the next start is a new sentinel on the same database file. */
describe('the replay sentinel killed between its record and its alert', () => {
  const tempDir = useTempDir('watchdesk-replay-crash-')
  const open: { db: Database; sentinel?: ReplaySentinel }[] = []
  afterEach(() => {
    for (const o of open.splice(0)) {
      o.sentinel?.dispose()
      o.db.close()
    }
  })

  const start = (file: string, alert: (a: ReplayAlert) => void) => {
    const db = unwrap(openDatabase(file))
    const committed = createCommittedEvents({ log: silentLogger })
    const sentinel = startReplaySentinel({
      db,
      committed,
      config: () => ({ toleranceSeconds: 30, tolerancePercent: 2 }),
      storage: createStorageHealth(file, silentLogger),
      log: silentLogger,
      alert,
      now: () => t0 + 6_000,
      eventAt: (seq) => (seq === summary.seq ? summary : null),
    })
    open.push({ db, sentinel })
    return { db, committed, sentinel }
  }

  it('raises the alert at the next start: no suspect is on record without its alert', () => {
    const file = join(tempDir(), databaseFileName)
    const first = start(file, () => {
      throw new Error('the process died here')
    })
    // The listener's commit: the first arrival and, 5 s after its 200, the same delivery again.
    const arrive = first.db.prepare(
      'INSERT INTO event_arrivals (event_seq, at, remote, conflicted) VALUES (1, ?, ?, 0)',
    )
    arrive.run(t0 + 1_000, '127.0.0.1')
    arrive.run(t0 + 6_000, '198.51.100.23')
    first.committed.publish({ origin: { kind: 'listener' }, events: [{ summary, duplicate: true }] })
    open.splice(0).forEach((o) => (o.sentinel?.dispose(), o.db.close()))

    const raised: ReplayAlert[] = []
    start(file, (a) => raised.push(a))
    expect(raised).toHaveLength(1)
    expect(raised[0]).toMatchObject({ rule: 'webhook.replay_suspected', subject: 'event:evt_crash_between' })
    expect(raised[0]!.title).toContain('198.51.100.23')

    // Recorded with it now: a third start raises nothing more.
    open.splice(0).forEach((o) => (o.sentinel?.dispose(), o.db.close()))
    const again: ReplayAlert[] = []
    start(file, (a) => again.push(a))
    expect(again).toEqual([])
  })
})
