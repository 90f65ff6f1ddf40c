import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createCommittedEvents } from '../../../src/main/committed'
import { databaseFileName, openDatabase } from '../../../src/main/db'
import type { Database } from '../../../src/main/db'
import { startDisablementWatch } from '../../../src/main/disablement'
import type { DisablementCondition, DisablementWatch } from '../../../src/main/disablement'
import { silentLogger } from '../../../src/main/log'
import type { ListenerStatus } from '../../../src/shared/contract/events'
import { err, ok, unwrap } from '../../../src/shared/result'
import type { Result } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'

const endpoint = 'wh_api_down_7e2a'
const hour = 3_600_000

/** Trial (issue 32.4 × the payments API stopped): deliveries were marked failed while the console
 * was not running, and the API does not answer when the watch asks for the endpoint's status. The
 * answer says why it could not be asked; once the API answers again, the next look asks again and
 * says what it lists (a failed question is not kept for the 30 minutes a real answer is). */
describe('the endpoint-disablement watch while the payments API is down', () => {
  const tempDir = useTempDir('watchdesk-disable-api-')
  const opened: { watch: DisablementWatch; db: Database }[] = []
  afterEach(() => {
    for (const o of opened.splice(0)) {
      o.watch.dispose()
      o.db.close()
    }
  })

  it('says the status could not be read, then asks again at the next look once the API is back', async () => {
    const db = unwrap(openDatabase(join(tempDir(), databaseFileName)))
    const clock = manualClock(Date.parse('2026-11-28T03:00:00Z'))
    let api: Result<{ endpoints: { id: string; status: string | null }[] }> = err(
      'unavailable',
      'the payments API cannot be reached (connection refused)',
    )
    let asked = 0
    const observed: DisablementCondition[] = []
    const listener = {
      listening: true,
      problem: null,
      endpoints: [endpoint],
      // The console was not running for 30 h, until an hour ago: longer than the retry ladder.
      outages: [{ from: clock.now() - 31 * hour, to: clock.now() - hour }],
    }
    const watch = startDisablementWatch({
      db,
      clock,
      log: silentLogger,
      leadMs: () => 2 * hour,
      publicUrlSet: () => true,
      listener: () => listener as unknown as ListenerStatus,
      publicUrl: () => ({
        url: 'https://console.example/webhooks',
        state: 'reachable',
        cause: null,
        checkedAt: clock.now(),
        message: 'reachable',
        fix: null,
      }),
      committed: createCommittedEvents({ log: silentLogger }),
      listEndpoints: async () => (asked++, api),
      observe: (c) => observed.push(c),
      publish: () => {},
      checkMs: 60_000,
    })
    opened.push({ watch, db })

    const down = await watch.checkNow()
    expect(down.endpoints[0]).toMatchObject({ state: 'failed', apiStatus: null })
    const failed = () => observed.filter((c) => c.rule === 'endpoint.deliveries_failed' && c.active).at(-1)!
    expect(failed().body).toContain(
      'Its status could not be read from the payments API: the payments API cannot be reached (connection refused)',
    )

    api = ok({ endpoints: [{ id: endpoint, status: 'disabled' }] })
    const before = asked
    clock.advance(60_000) // the next look
    const back = await watch.checkNow()
    expect(asked).toBeGreaterThan(before)
    expect(back.endpoints[0]).toMatchObject({ state: 'failed', apiStatus: 'disabled' })
    expect(failed().body).toContain(`The payments API lists ${endpoint} as "disabled"`)
  })
})
