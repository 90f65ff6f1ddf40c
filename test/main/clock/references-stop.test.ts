import { describe, expect, it } from 'vitest'
import { startClockGuard } from '../../../src/main/clock'
import type { ClockGuard } from '../../../src/main/clock'
import { createCommittedEvents } from '../../../src/main/committed'
import type { AppContext } from '../../../src/main/context'
import { silentLogger } from '../../../src/main/log'
import type { ClockStatus } from '../../../src/shared/contract/clock'
import { toDisposable } from '../../../src/shared/disposable'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

const s = 1000
const httpDate = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toUTCString()

/** Trial (issue 32.3 × its references stopping): the RPC nodes and the payments API go away (the
 * network drops), so no reading arrives any more. The guard must not keep showing "120 s ahead,
 * corrected" as live from readings that left its window: it says it no longer knows, and stops
 * correcting the chains by a figure nothing confirms. */
describe('the clock guard when every reference stops', () => {
  const tempDir = useTempDir('watchdesk-clock-stop-')

  it('lets readings leave the window with no new reading, and says the offset is unknown', async () => {
    let now = Date.parse('2026-11-28T03:00:00Z')
    const pushed: ClockStatus[] = []
    const ctx = {
      dataDir: tempDir(),
      log: silentLogger,
      config: () => ({ clock: { offsetWarnSeconds: 5 } }),
      onConfigChange: () => toDisposable(() => {}),
      push: { publish: (_topic: string, status: ClockStatus) => pushed.push(status) },
      committed: createCommittedEvents({ log: silentLogger }),
    } as unknown as AppContext
    const guard: ClockGuard = startClockGuard(ctx, { now: () => now, settleMs: 10, expireCheckMs: 50 })
    try {
      // This machine's clock 120 s ahead of twelve chains and the gateway's Date, a few rounds.
      for (let round = 0; round < 5; round++) {
        now += 2 * s
        const real = now - 120 * s
        for (let chain = 1; chain <= 12; chain++) {
          guard.references.observe({
            kind: 'block',
            serviceId: chain,
            localMs: now,
            blockTimestamp: Math.floor((real - 300) / 1000) + round,
            blockTimeMs: 2000,
          })
        }
        guard.references.observe({ kind: 'http_date', source: 'rpc', localMs: now, date: httpDate(real) })
      }
      await waitFor(() => guard.status().state === 'off', 'the offset named', { timeoutMs: 10_000 })
      expect(guard.references.correctionMs()).toBeGreaterThan(100_000)

      // Every reference stops; time passes beyond the readings' window (2 min). Nothing is observed.
      now += 10 * 60 * s
      await waitFor(() => guard.status().state === 'unknown', 'the stale offset dropped', {
        timeoutMs: 10_000,
      })
      expect(guard.references.correctionMs()).toBe(0)
      expect(pushed.at(-1)).toMatchObject({ state: 'unknown', correctionSeconds: 0 })
    } finally {
      await guard.stop()
    }
  })
})
