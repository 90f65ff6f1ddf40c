import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startBackend } from '../../../src/main/backend'
import type { Backend } from '../../../src/main/backend'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { post, secretA } from '../webhooks/helpers'

const wait = { timeoutMs: 30_000 }

/** Trial (issue 32 × config.json edited by hand while the console runs): odd but valid values for
 * every guard's keys. Each guard applies them live, with no restart, and reports the values it now
 * uses. The poll clock is moved by hand and never moved here: nothing waits for a periodic look. */
describe('the four guards and a hand-edited config.json', () => {
  const tempDir = useTempDir('watchdesk-guards-config-')
  const started: Backend[] = []
  afterEach(async () => {
    for (const b of started.splice(0)) await b.close()
  })

  it(
    'apply replay, clock, disablement and drift keys edited while running, with no restart',
    { timeout: 90_000 },
    async () => {
      const dataDir = tempDir()
      const backend = unwrap(
        await startBackend({
          dataDir,
          shell: 'serve',
          env: {},
          log: silentLogger,
          listenerPort: 0,
          secrets: createMemoryStore({ 'webhook-secret:wh_alpha': secretA }),
          clock: manualClock(),
        }),
      )
      started.push(backend)
      const { replay, clock, disablement, drift } = backend.services
      await waitFor(() => disablement.status().checkedAt !== null, 'the first look', wait)
      expect(disablement.status().leadMinutes).toBe(120)

      writeFileSync(
        join(dataDir, 'config.json'),
        JSON.stringify({
          replay: { toleranceSeconds: 3600, tolerancePercent: 50 },
          clock: { offsetWarnSeconds: 3600 },
          alerts: { disablementLeadMinutes: 1440 },
          drift: { enabled: false, learnEvents: 1, acknowledged: ['*'] },
        }),
      )
      await waitFor(
        () =>
          replay.status().tolerance.seconds === 3600 &&
          clock.status().thresholdSeconds === 3600 &&
          disablement.status().leadMinutes === 1440 &&
          !drift.status().enabled,
        'every guard to report the edited values',
        wait,
      )
      expect(replay.status().tolerance).toEqual({ seconds: 3600, percent: 50 })
      expect(drift.status()).toMatchObject({ enabled: false, learnEvents: 1 })

      // The replay tolerance is used, not only shown: with an hour either side of the 1 min rung, a
      // redelivery a moment after the first is a retry (at 30 s it would be a suspected replay).
      const text = JSON.stringify({
        id: 'evt_hand_edit',
        type: 'funding.completed',
        created_at: new Date().toISOString(),
        data: { id: 'fund_1' },
      })
      const url = `${backend.services.webhooks.address().url}/webhooks`
      for (let i = 0; i < 2; i++)
        expect((await post(url, text, { 'x-service-signature': signBody(secretA, text) })).status).toBe(200)
      const detail = unwrap(await backend.handlers['events.get']({ id: 'evt_hand_edit' }))
      expect(detail.arrivals!.map((a) => a.verdict)).toEqual(['first', 'retry'])
    },
  )
})
