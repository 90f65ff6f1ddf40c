import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  chainStatuses,
  defaultThresholds,
  evaluateHealth,
  statusRank,
  worstStatus,
} from '../../src/shared/chains/health'
import type { Observation } from '../../src/shared/chains/health'

const healthy: Observation = {
  notConfigured: null,
  error: null,
  identityMismatch: null,
  blockAgeSeconds: 1,
  sinceHeadAdvancedSeconds: 1,
  referenceLagBlocks: null,
  blockTimeMs: 2000,
}
const thresholds = { laggingAfterSeconds: 10, stalledAfterSeconds: 60 }

describe('chain health evaluation', () => {
  it('derives thresholds from the block time, with floors for fast chains', () => {
    expect(defaultThresholds(12_000)).toEqual({ laggingAfterSeconds: 60, stalledAfterSeconds: 240 })
    expect(defaultThresholds(250)).toEqual({ laggingAfterSeconds: 10, stalledAfterSeconds: 60 })
  })

  it('calls a fresh head healthy, an old one lagging, a very old one stalled', () => {
    expect(evaluateHealth(healthy, thresholds).status).toBe('healthy')
    expect(evaluateHealth({ ...healthy, blockAgeSeconds: 11 }, thresholds)).toEqual({
      status: 'lagging',
      reason: 'the head block is 11 s old (lagging after 10 s).',
    })
    expect(evaluateHealth({ ...healthy, blockAgeSeconds: 61 }, thresholds).status).toBe('stalled')
  })

  it('falls back to the time since the head advanced when there is no block timestamp', () => {
    const result = evaluateHealth(
      { ...healthy, blockAgeSeconds: null, sinceHeadAdvancedSeconds: 70 },
      thresholds,
    )
    expect(result.status).toBe('stalled')
    expect(result.reason).toMatch(/has not advanced for 70 s/)
  })

  it('uses blocks behind the reference when one is configured', () => {
    // 10 s at 2 s a block: lagging beyond 5 blocks.
    expect(evaluateHealth({ ...healthy, referenceLagBlocks: 5 }, thresholds).status).toBe('healthy')
    expect(evaluateHealth({ ...healthy, referenceLagBlocks: 6 }, thresholds).status).toBe('lagging')
  })

  it('puts not configured, down and wrong network before any staleness verdict', () => {
    const stale = { ...healthy, blockAgeSeconds: 1000 }
    expect(evaluateHealth({ ...stale, notConfigured: 'no url' }, thresholds).status).toBe('not_configured')
    expect(evaluateHealth({ ...stale, error: 'refused' }, thresholds).status).toBe('down')
    expect(evaluateHealth({ ...stale, identityMismatch: 'chain 1' }, thresholds).status).toBe('wrong_network')
  })

  it('never calls an older head healthier than a younger one (property)', () => {
    fc.assert(
      fc.property(
        fc.float({ min: 0, max: 5000, noNaN: true }),
        fc.float({ min: 0, max: 5000, noNaN: true }),
        (a, b) => {
          const [young, old] = a < b ? [a, b] : [b, a]
          const ry = statusRank(evaluateHealth({ ...healthy, blockAgeSeconds: young }, thresholds).status)
          const ro = statusRank(evaluateHealth({ ...healthy, blockAgeSeconds: old }, thresholds).status)
          expect(ro).toBeLessThanOrEqual(ry)
        },
      ),
    )
  })

  it('picks the worst status for the strip and the tray', () => {
    expect(worstStatus(['healthy', 'lagging', 'not_configured'])).toBe('lagging')
    expect(worstStatus(['healthy', 'down', 'wrong_network'])).toBe('wrong_network')
    expect(worstStatus([])).toBeNull()
    expect(chainStatuses[0]).toBe('wrong_network')
  })
})
