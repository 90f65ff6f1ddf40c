import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { retentionRules } from '../../../src/main/contributions'
import { openDatabase } from '../../../src/main/db'
import { pruneBatch } from '../../../src/main/db/retention'
import { upsertEventSql } from '../../../src/main/webhooks/sql'
import { useTempDir } from '../../support/temp'
import { dayMs, eventParams } from '../db/retention-fixture'

/** The replay sentinel's rows are keyed by the event's seq: retention (a foundation that names no
 * capability's table) removes them with their event through the sentinel's contribution. */
describe('retention and the replay sentinel’s record', () => {
  const tempDir = useTempDir('watchdesk-replay-retention-')

  it('removes an event’s arrivals and its suspect row with the event, and keeps those of a recent event', () => {
    const opened = openDatabase(join(tempDir(), 'watchdesk.db'))
    if (!opened.ok) throw new Error(opened.error.message)
    const db = opened.value
    const now = Date.now()
    const upsert = db.prepare(upsertEventSql)
    const arrival = db.prepare('INSERT INTO event_arrivals (event_seq, at, remote) VALUES (?, ?, ?)')
    const suspect = db.prepare(
      `INSERT INTO replay_suspects (event_seq, id, type, at, remote, reason) VALUES (?, ?, 'payment.succeeded', ?, '203.0.113.9', 'arrived 5 s after a 200')`,
    )
    const seeds = [
      { id: 'evt_old', at: now - 40 * dayMs },
      { id: 'evt_new', at: now - dayMs },
    ]
    for (const { id, at } of seeds) {
      const seq = (upsert.get(eventParams(id, at)) as { seq: number }).seq
      arrival.run(seq, at, '203.0.113.9')
      arrival.run(seq, at + 5_000, '203.0.113.9')
      suspect.run(seq, id, at + 5_000)
    }
    const statements = pruneBatch(retentionRules, 'events', now - 30 * dayMs, 100)
    db.transaction(() => {
      for (const s of statements) db.prepare(s.sql).run(s.params)
    })()
    const left = (sql: string) => (db.prepare(sql).all() as { id: string }[]).map((r) => r.id)
    expect(left('SELECT id FROM events ORDER BY id')).toEqual(['evt_new'])
    expect(
      left('SELECT e.id AS id FROM event_arrivals a JOIN events e ON e.seq = a.event_seq ORDER BY a.at'),
    ).toEqual(['evt_new', 'evt_new'])
    expect((db.prepare('SELECT count(*) AS n FROM event_arrivals').get() as { n: number }).n).toBe(2)
    expect(left('SELECT id FROM replay_suspects')).toEqual(['evt_new'])
    db.close()
  })
})
