import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ClockEstimator } from '../../../src/main/clock'
import { statusOf } from '../../../src/main/clock/status'

/** The estimator over scripted readings: real time `real`, this machine's clock `real + offset`. */
const t0 = 1_800_000_000_000
const httpDate = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toUTCString()

function feed(
  e: ClockEstimator,
  {
    offsetMs,
    chains,
    round,
    delays,
  }: { offsetMs: number; chains: number[]; round: number; delays?: number[] },
) {
  const real = t0 + round * 2000
  chains.forEach((lagMs, i) => {
    const delay = delays?.[i] ?? 300
    // A block stamped (whole seconds) `lagMs` before it is seen, seen `delay` later.
    const stamp = Math.floor((real - lagMs) / 1000)
    e.observe({
      kind: 'block',
      serviceId: i + 1,
      localMs: real + delay + offsetMs,
      blockTimestamp: stamp,
      blockTimeMs: 2000,
    })
    e.observe({ kind: 'http_date', source: 'rpc', localMs: real + delay + offsetMs, date: httpDate(real) })
  })
  return real + offsetMs
}

describe('the clock estimator', () => {
  it('finds a clock 120 s ahead within 2 s from twelve chains and the gateway Date, and corrects by it', () => {
    const e = new ClockEstimator({ thresholdSeconds: 5 })
    let now = 0
    for (let round = 0; round < 10; round++)
      now = feed(e, { offsetMs: 120_000, chains: Array(12).fill(0), round })
    const v = e.estimate(now)
    expect(v.state).toBe('off')
    expect(Math.abs(v.offsetSeconds! - 120)).toBeLessThanOrEqual(2)
    expect(Math.abs(v.correctionSeconds - 120)).toBeLessThanOrEqual(2)
    const status = statusOf(v, now)
    expect(status.message).toMatch(
      /clock is 12\d s ahead of the chains' newest blocks \+12\d s, the RPC gateway's Date \+12\d s/,
    )
    expect(status.fix).toMatch(/NTP/)
  })

  it('a clock in step reads ok and corrects nothing, even with five chains lagging by minutes', () => {
    const e = new ClockEstimator({ thresholdSeconds: 5 })
    let now = 0
    const chains = [0, 0, 0, 0, 0, 0, 0, 300_000, 300_000, 300_000, 300_000, 300_000]
    for (let round = 0; round < 5; round++) now = feed(e, { offsetMs: 0, chains, round })
    const v = e.estimate(now)
    expect(v.state).toBe('ok')
    expect(Math.abs(v.offsetSeconds!)).toBeLessThanOrEqual(2)
    expect(v.correctionSeconds).toBe(0)
  })

  it('chains all stale behind a gateway whose Date is right: the references disagree, nothing is corrected', () => {
    const e = new ClockEstimator({ thresholdSeconds: 5 })
    let now = 0
    for (let round = 0; round < 5; round++)
      now = feed(e, { offsetMs: 0, chains: Array(12).fill(120_000 + round * 2000), round })
    const v = e.estimate(now)
    expect(v.state).toBe('disagree')
    expect(v.correctionSeconds).toBe(0)
    expect(statusOf(v, now).message).toMatch(/disagree/)
  })

  it('one reference alone is unconfirmed: named, never corrected', () => {
    const e = new ClockEstimator({ thresholdSeconds: 5 })
    const real = t0
    e.observe({ kind: 'http_date', source: 'api', localMs: real + 60_000, date: httpDate(real) })
    const v = e.estimate(real + 60_000)
    expect(v.state).toBe('unconfirmed')
    expect(v.correctionSeconds).toBe(0)
    expect(statusOf(v, real).message).toMatch(
      /Only the payments API's Date says this machine's clock is 59\.5 s ahead/,
    )
  })

  it('webhooks count from their lowest arrival − created_at: retries arriving late do not move it', () => {
    const e = new ClockEstimator({ thresholdSeconds: 5 })
    const real = t0
    e.observeWebhook(real - 30_000 + 200, real - 30_000)
    e.observeWebhook(real + 200 - 60_000 + 300_000, real - 60_000) // a retry 5 min late
    e.observe({ kind: 'http_date', source: 'api', localMs: real + 300, date: httpDate(real) })
    const v = e.estimate(real)
    expect(v.state).toBe('ok')
    expect(v.references.find((r) => r.kind === 'webhooks')!.offsetSeconds).toBe(0.2)
  })

  it('with no reading the state is unknown, and old readings leave the window', () => {
    const e = new ClockEstimator({ thresholdSeconds: 5, windowMs: 60_000 })
    expect(e.estimate(t0).state).toBe('unknown')
    feed(e, { offsetMs: 120_000, chains: Array(12).fill(0), round: 0 })
    expect(e.estimate(t0 + 120_000).state).toBe('off')
    expect(e.estimate(t0 + 120_000 + 5 * 60_000).state).toBe('unknown')
  })

  it('stays off until the offset is below 80 % of the threshold (no flapping at the threshold)', () => {
    const e = new ClockEstimator({ thresholdSeconds: 10, windowMs: 10_000 })
    const at = (offsetMs: number, round: number) => feed(e, { offsetMs, chains: Array(12).fill(0), round })
    expect(e.estimate(at(12_000, 0)).state).toBe('off')
    expect(e.estimate(at(9_000, 20)).state).toBe('off')
    expect(e.estimate(at(7_000, 40)).state).toBe('ok')
    expect(e.estimate(at(9_000, 60)).state).toBe('ok')
  })

  it('property: any offset, any non-negative delays, a lagging minority: the estimate is within 2 s of the offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -600_000, max: 600_000 }),
        fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 12, maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: 900_000 }), { minLength: 0, maxLength: 5 }),
        (offsetMs, delays, lagging) => {
          const e = new ClockEstimator({ thresholdSeconds: 5 })
          const chains = [...lagging, ...Array(12 - lagging.length).fill(0)]
          let now = 0
          for (let round = 0; round < 4; round++) now = feed(e, { offsetMs, chains, round, delays })
          const v = e.estimate(now)
          expect(Math.abs(v.offsetSeconds! * 1000 - offsetMs)).toBeLessThanOrEqual(2000)
          if (Math.abs(offsetMs) > 7000) {
            expect(v.state).toBe('off')
            expect(Math.abs(v.correctionSeconds * 1000 - offsetMs)).toBeLessThanOrEqual(2000)
          }
          if (Math.abs(offsetMs) < 3000) expect(v.correctionSeconds).toBe(0)
        },
      ),
      { numRuns: 200 },
    )
  })
})
