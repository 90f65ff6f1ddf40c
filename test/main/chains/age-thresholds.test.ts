import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AgeThresholds } from '../../../src/main/chains/checks/age-thresholds'

/** The percentile as first written: the last hour's well ages (at most 720), sorted afresh. */
function naiveTypicalHigh(observed: { age: number | null; late: boolean }[]): number | null {
  const ages = observed.filter((o) => !o.late && o.age !== null).map((o) => o.age!)
  const window = ages.slice(-720)
  if (window.length < 60) return null
  const sorted = [...window].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))]!
}

const base = { laggingAfterSeconds: 30, stalledAfterSeconds: 120 }

describe('block-age thresholds from the chain’s own ages', () => {
  it('the 99th percentile is that of the last 720 well ages, whatever their order, repeats and late polls', () => {
    const poll = fc.record({
      // Repeats (which the kept order must remove one at a time) and a long tail (the percentile).
      age: fc.option(
        fc.oneof(
          fc.integer({ min: 0, max: 8 }),
          fc.integer({ min: 0, max: 4_000 }).map((n) => n / 4),
        ),
        { nil: null, freq: 10 },
      ),
      late: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    })
    fc.assert(
      fc.property(fc.array(poll, { minLength: 0, maxLength: 1_600, size: 'max' }), (polls) => {
        const thresholds = new AgeThresholds()
        polls.forEach((p, i) => {
          thresholds.observe(p.age, p.late)
          if (i % 11 === 0 || i === polls.length - 1)
            expect(thresholds.typicalHigh()).toBe(naiveTypicalHigh(polls.slice(0, i + 1)))
        })
      }),
      { numRuns: 20, endOnFailure: true },
    )
  })

  it('raises the thresholds to twice (lagging) and three times (stalled) the percentile once 60 ages are in', () => {
    const thresholds = new AgeThresholds()
    for (let i = 0; i < 59; i++) thresholds.observe(20, false)
    expect(thresholds.current(base)).toEqual(base)
    thresholds.observe(20, false)
    expect(thresholds.current(base)).toEqual({ laggingAfterSeconds: 40, stalledAfterSeconds: 120 })
    // An hour of quicker blocks pushes the old ages out of the window.
    for (let i = 0; i < 720; i++) thresholds.observe(1, false)
    expect(thresholds.typicalHigh()).toBe(1)
    expect(thresholds.current(base)).toEqual(base)
  })
})
