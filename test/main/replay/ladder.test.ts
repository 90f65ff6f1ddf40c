import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { classifyArrivals, ladderTotalMs, retryLadderMs } from '../../../src/main/replay'
import type { Arrival } from '../../../src/main/replay'

const tolerance = { seconds: 30, percent: 2 }
const t0 = Date.parse('2026-11-28T03:00:00Z')
const s = 1000
const min = 60 * s
const arrival = (at: number, remote = '203.0.113.9'): Arrival => ({ at, remote, conflicted: false })
const verdicts = (arrivals: Arrival[], created = t0) =>
  classifyArrivals(arrivals, created, tolerance).map((a) => a.verdict)

describe('the replay sentinel’s ladder', () => {
  it('calls a redelivery 5 s after the first arrival (answered 200) a suspected replay, with the reason', () => {
    const [first, again] = classifyArrivals([arrival(t0), arrival(t0 + 5 * s)], t0, tolerance)
    expect(first!.verdict).toBe('first')
    expect(again!.verdict).toBe('suspected_replay')
    expect(again!.reason).toBe(
      'arrived 5 s after the arrival at 03:00:00 UTC, answered 200; no retry delay (1 min, 5 min, 30 min, 2 h, 24 h) explains it',
    )
  })

  it('calls every redelivery on the ladder a retry, measured from created_at', () => {
    let at = t0
    const arrivals = [arrival(at)]
    for (const delay of retryLadderMs) arrivals.push(arrival((at += delay + 4 * s)))
    expect(verdicts(arrivals)).toEqual(['first', 'retry', 'retry', 'retry', 'retry', 'retry'])
    expect(classifyArrivals(arrivals, t0, tolerance)[1]!.reason).toBe(
      'fits the 1st retry, 64 s after created_at',
    )
  })

  it('calls a retry after unseen failed attempts a retry (the rungs in between add up)', () => {
    // Attempts at 0, 1 min and 6 min never reached this listener; the 36 min one did, then 2h36.
    const first = t0 + 36 * min + 2 * s
    expect(verdicts([arrival(first), arrival(first + 2 * 60 * min + 3 * s)])).toEqual(['first', 'retry'])
    // Measured from the arrivals alone when created_at is not a date.
    const reasons = classifyArrivals([arrival(first), arrival(first + 2 * 60 * min)], null, tolerance)
    expect(reasons[1]!.reason).toMatch(/^fits the 4th retry, 2 h after the arrival at 03:36:02 UTC/)
  })

  it('calls any redelivery whose created_at is older than the whole ladder a suspected replay', () => {
    const late = t0 + ladderTotalMs + 2 * 60 * min + 1
    const [, again] = classifyArrivals([arrival(t0 + 2 * s), arrival(late)], t0, tolerance)
    expect(again!.verdict).toBe('suspected_replay')
    expect(again!.reason).toMatch(/older than the whole retry ladder \(26 h 36 min\)/)
  })

  it('widens each rung by the configured tolerance', () => {
    const arrivals = [arrival(t0), arrival(t0 + 1 * min + 50 * s)]
    expect(verdicts(arrivals)).toEqual(['first', 'suspected_replay'])
    expect(classifyArrivals(arrivals, t0, { seconds: 60, percent: 0 }).map((a) => a.verdict)).toEqual([
      'first',
      'retry',
    ])
  })

  it('keeps the address and the conflict flag of each arrival beside its verdict', () => {
    const [, again] = classifyArrivals(
      [arrival(t0), { at: t0 + 5 * s, remote: '198.51.100.7 via 127.0.0.1', conflicted: true }],
      t0,
      tolerance,
    )
    expect(again).toMatchObject({ remote: '198.51.100.7 via 127.0.0.1', conflicted: true })
  })

  it('never calls a redelivery within 20 s of the one before a retry (no rung is that short)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 20_000 }),
        fc.integer({ min: 0, max: 30 * 60_000 }),
        (gap, lateness) => {
          const first = t0 + lateness
          const [, again] = classifyArrivals([arrival(first), arrival(first + gap)], t0, tolerance)
          // Unless created_at itself puts it on a rung (the first arrival came late).
          const fromCreated = first + gap - t0
          const onRung = [60_000, 360_000, 2_160_000].some(
            (r) => Math.abs(fromCreated - r) <= Math.max(30_000, r / 50),
          )
          return onRung || again!.verdict === 'suspected_replay'
        },
      ),
    )
  })
})
