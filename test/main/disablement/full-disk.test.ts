import { join } from 'node:path'
import { rmSync } from 'node:fs'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createCommittedEvents } from '../../../src/main/committed'
import { databaseFileName, openDatabase } from '../../../src/main/db'
import type { Database } from '../../../src/main/db'
import { ladderMs, startDisablementWatch } from '../../../src/main/disablement'
import type { DisablementCondition, DisablementWatch } from '../../../src/main/disablement'
import { silentLogger } from '../../../src/main/log'
import type { ListenerStatus } from '../../../src/shared/contract/events'
import type { PublicUrlState } from '../../../src/shared/contract/payments'
import { ok, unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { exhaustDatabase, fillDisk, mountTmpfs } from '../db/tmpfs'

const endpoint = 'wh_full_disk_5c1d'
const hour = 3_600_000
const lead = 2 * hour

/** Trial (issue 32.4 × a full disk): the public URL fails while the console's disk is full, so the
 * watch cannot record the outage. It must still forecast from what it sees (a disk that fills
 * often comes with the outage that matters), warn before the deadline, and say its record is not
 * durable — never go quiet on a stale status. */
describe('the endpoint-disablement watch on a full disk', () => {
  const tmpfs = mountTmpfs(2048)
  const skip = tmpfs.dir === null ? (tmpfs as { reason: string }).reason : ''
  const opened: { watch: DisablementWatch; db: Database }[] = []
  afterEach(() => {
    for (const o of opened.splice(0)) {
      o.watch.dispose()
      o.db.close()
    }
  })
  afterAll(() => {
    if (tmpfs.dir !== null) tmpfs.unmount()
  })

  it.skipIf(skip !== '')(
    'forecasts and warns before the deadline from the outage it sees, and says the record cannot be saved',
    async () => {
      const db = unwrap(openDatabase(join(tmpfs.dir!, databaseFileName)))
      const clock = manualClock(Date.parse('2026-11-28T03:00:00Z'))
      const observed: DisablementCondition[] = []
      let url: PublicUrlState = {
        url: 'https://console.example/webhooks',
        state: 'reachable',
        cause: null,
        checkedAt: clock.now(),
        message: 'reachable',
        fix: null,
      }
      const listener = { listening: true, problem: null, endpoints: [endpoint], outages: [] }
      const watch = startDisablementWatch({
        db,
        clock,
        log: silentLogger,
        leadMs: () => lead,
        publicUrlSet: () => true,
        listener: () => listener as unknown as ListenerStatus,
        publicUrl: () => url,
        committed: createCommittedEvents({ log: silentLogger }),
        listEndpoints: async () => ok({ endpoints: [{ id: endpoint, status: 'active' }] }),
        observe: (c) => observed.push(c),
        publish: () => {},
        checkMs: 60_000,
      })
      opened.push({ watch, db })
      expect((await watch.checkNow()).endpoints[0]).toMatchObject({ state: 'clear' })

      clock.advance(60_000)
      const filler = join(tmpfs.dir!, 'filler')
      fillDisk(filler)
      exhaustDatabase(db)
      try {
        const downAt = clock.now()
        url = {
          ...url,
          state: 'unreachable',
          cause: 'connection',
          checkedAt: downAt,
          message: 'connection refused',
        }
        const first = await watch.checkNow()
        expect(first.checkedAt).toBe(downAt)
        expect(first.outage).toMatchObject({ since: downAt, cause: 'public_url' })
        expect(first.endpoints[0]).toMatchObject({
          state: 'clear',
          downSince: downAt,
          deadline: downAt + ladderMs,
        })
        expect(first.note).toMatch(/cannot be saved.*disk/i)

        // Still down, still full, past the lead before the deadline: the warning goes out.
        clock.advance(ladderMs - lead + 60_000)
        url = { ...url, checkedAt: clock.now() }
        const later = await watch.checkNow()
        expect(later.checkedAt).toBe(clock.now())
        expect(later.endpoints[0]).toMatchObject({ state: 'at_risk', downSince: downAt })
        // The watch reports the rule's condition at each look: inactive until now, active now.
        const risk = observed.filter((c) => c.rule === 'endpoint.disable_risk')
        expect(risk.at(-1)).toMatchObject({ active: true, subject: `endpoint:${endpoint}` })
        expect(risk.slice(0, 2).map((c) => c.active)).toEqual([false, false])
      } finally {
        rmSync(filler)
      }

      // Space again: the outage is recorded (durable), and the note is gone.
      url = { ...url, checkedAt: clock.now() }
      const freed = await watch.checkNow()
      expect(freed.note).toBeNull()
      expect(freed.endpoints[0]).toMatchObject({ state: 'at_risk' })
      const rows = db.prepare('SELECT cause, started_at FROM reachability_outages').all()
      expect(rows).toEqual([{ cause: 'public_url', started_at: expect.any(Number) }])
      expect((rows[0] as { started_at: number }).started_at).toBeLessThanOrEqual(
        freed.endpoints[0]!.downSince!,
      )
    },
    60_000,
  )
})
