import { describe, expect, it } from 'vitest'
import { ActivityWindow } from '../../../src/main/webhooks/stats'

const t0 = Date.UTC(2026, 10, 24, 13, 0, 0)

describe('listener activity counts', () => {
  it('counts events of the last minute and the last hour apart, and forgets older ones', () => {
    const w = new ActivityWindow(t0)
    w.record(t0 + 1_000) // 2 h before "now" below: gone
    w.record(t0 + 2 * 3_600_000 - 30 * 60_000, 3) // 30 min ago
    w.record(t0 + 2 * 3_600_000 - 10_000, 2) // 10 s ago
    const s = w.summary(t0 + 2 * 3_600_000)
    expect(s).toEqual({ lastMinute: 2, lastHour: 5, lastEventAt: t0 + 2 * 3_600_000 - 10_000, since: t0 })
  })

  it('reuses a second bucket of an earlier hour without adding its old count', () => {
    const w = new ActivityWindow(t0)
    w.record(t0, 7)
    w.record(t0 + 3_600_000, 1) // the same ring slot, one hour later
    expect(w.summary(t0 + 3_600_000).lastHour).toBe(1)
  })

  it('starts from counts seeded from the store and says from when they are complete', () => {
    const w = new ActivityWindow(t0 + 3_600_000)
    w.seed([{ second: t0 / 1000 + 10, count: 4 }], t0)
    const s = w.summary(t0 + 3_600_000)
    expect(s.lastHour).toBe(4)
    expect(s.since).toBe(t0)
  })
})
