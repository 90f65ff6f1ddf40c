import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createCommittedEvents } from '../../../src/main/committed'
import type { CommittedEvents } from '../../../src/main/committed'
import { databaseFileName, openDatabase } from '../../../src/main/db'
import type { Database } from '../../../src/main/db'
import { startDriftWatch } from '../../../src/main/drift'
import type { DriftWatch, ShapeCondition } from '../../../src/main/drift'
import { silentLogger } from '../../../src/main/log'
import type { EventSummary } from '../../../src/shared/contract/events'
import { unwrap } from '../../../src/shared/result'
import { exhaustDatabase, fillDisk, mountTmpfs } from '../db/tmpfs'

type Row = { seq: number; id: string; type: string; data: string }
const payment = (i: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: `pay_${i}`, amount: 1000 + i, currency: 'USD', ...extra })

/** Trial (issue 32.5 × a full disk): a shape change noticed while the database takes no writes is
 * warned about from memory; once the disk frees, the change must be saved with the shapes that
 * learned it. Saving the shapes without it would hide it for good: after a restart the field is
 * known, so no event shows it again, and the Events view has no change to mark. The stored events
 * are the webhooks store's read port, here a list; the watch's own tables are on a real full disk. */
describe('the payload drift watch on a full disk', () => {
  const tmpfs = mountTmpfs(2048)
  const skip = tmpfs.dir === null ? (tmpfs as { reason: string }).reason : ''
  const opened: { watch: DriftWatch; db: Database }[] = []
  const closeAll = () => {
    for (const o of opened.splice(0)) {
      o.watch.dispose()
      o.db.close()
    }
  }
  afterEach(closeAll)
  afterAll(() => {
    if (tmpfs.dir !== null) tmpfs.unmount()
  })

  it.skipIf(skip !== '')(
    'saves a change noticed while the disk was full once it frees, so it survives a restart',
    () => {
      const file = join(tmpfs.dir!, databaseFileName)
      const rows: Row[] = []
      const add = (data: string) => {
        const seq = rows.length + 1
        rows.push({ seq, id: `evt_${seq}`, type: 'payment.completed', data })
      }
      let now = Date.parse('2026-11-28T03:00:00Z')
      const conditions: ShapeCondition[] = []
      const start = () => {
        const db = unwrap(openDatabase(file))
        const committed: CommittedEvents = createCommittedEvents({ log: silentLogger })
        const watch = startDriftWatch({
          db,
          committed,
          readPage: (seq, limit) => rows.filter((r) => r.seq > seq).slice(0, limit),
          config: () => ({ enabled: true, learnEvents: 10, acknowledged: [] }),
          condition: (c) => conditions.push(c),
          publish: () => {},
          log: silentLogger,
          now: () => now,
        })
        opened.push({ watch, db })
        const committedOne = () =>
          committed.publish({
            origin: { kind: 'listener' },
            events: [{ summary: { seq: rows.length } as EventSummary, duplicate: false }],
          })
        return { db, watch, committedOne }
      }

      for (let i = 0; i < 12; i++) add(payment(i))
      const first = start()
      expect(first.watch.status().types).toHaveLength(1)

      const filler = join(tmpfs.dir!, 'filler')
      fillDisk(filler)
      exhaustDatabase(first.db)
      try {
        add(payment(12, { note: 'new' }))
        first.committedOne()
        expect(first.watch.flush()).toBe(true)
        // Warned from memory, and the status says why it is not saved.
        expect(conditions.filter((c) => c.active)).toHaveLength(1)
        expect(first.watch.status().problem).toMatch(/cannot save/)
      } finally {
        rmSync(filler)
      }

      // Space again: later events of the new shape, and the periodic save.
      now += 60_000
      add(payment(13, { note: 'again' }))
      first.committedOne()
      expect(first.watch.flush()).toBe(true)
      expect(first.watch.status().problem).toBeNull()
      // Its row replaced its in-memory copy; re-stated under the same subject, still one warning.
      expect(first.watch.status().drifts).toEqual([expect.objectContaining({ eventId: 'evt_13' })])
      expect(first.watch.status().drifts[0]!.id).toBeGreaterThan(0)
      expect(new Set(conditions.map((c) => c.subject))).toEqual(new Set(['shape:payment.completed:evt_13']))
      expect(conditions.every((c) => c.active)).toBe(true)
      closeAll()

      const second = start()
      const drifts = second.watch.status().drifts
      expect(drifts.map((d) => [d.eventId, d.changes.map((c) => c.path)])).toEqual([['evt_13', ['note']]])
    },
  )
})
