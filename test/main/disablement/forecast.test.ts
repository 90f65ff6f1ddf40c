import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { forecast, joinSpans, ladderMs } from '../../../src/main/disablement'
import type { DownSpan } from '../../../src/main/disablement'
import { attemptOffsetMs, maxAttempts } from '../../../src/shared/events'

const min = 60_000
const hour = 60 * min
const offsets = Array.from({ length: maxAttempts }, (_, i) => attemptOffsetMs(i + 1))
const span = (from: number, to: number | null, cause = 'public_url'): DownSpan => ({
  from,
  to,
  cause,
  detail: 'public URL check: connection refused',
})

describe('the disablement forecast', () => {
  const t0 = Date.parse('2026-03-02T10:00:00Z')

  it('puts the deadline of an outage under way 26 h 36 min after it began, at risk from the lead on', () => {
    expect(ladderMs).toBe(26 * hour + 36 * min)
    const spans = [span(t0, null)]
    const early = forecast(spans, t0 + 20 * hour, 2 * hour)
    expect(early).toMatchObject({ state: 'clear', downSince: t0, deadline: t0 + ladderMs, failedFrom: null })
    expect(forecast(spans, t0 + ladderMs - 2 * hour - 1, 2 * hour).state).toBe('clear')
    expect(forecast(spans, t0 + ladderMs - 2 * hour, 2 * hour)).toMatchObject({
      state: 'at_risk',
      deadline: t0 + ladderMs,
      evidence: { cause: 'public_url' },
    })
  })

  it('calls an outage longer than the ladder failed, naming the deliveries first sent before the last one to fail', () => {
    const f = forecast([span(t0, t0 + 30 * hour, 'listener_runs')], t0 + 31 * hour, 2 * hour)
    expect(f).toMatchObject({
      state: 'failed',
      downSince: null,
      deadline: null,
      failedFrom: t0,
      failedBefore: t0 + 30 * hour - ladderMs,
    })
  })

  it('finds the 24 h retry of yesterday’s outage landing in today’s, sooner than today’s own deadline', () => {
    // Down 3 h yesterday, reachable for 21 h, down again since: a delivery first sent at 10:00
    // yesterday has its first four attempts in yesterday's outage and its last in today's.
    const spans = [span(t0, t0 + 3 * hour), span(t0 + 24 * hour, null)]
    const f = forecast(spans, t0 + 25 * hour, 2 * hour)
    expect(f.state).toBe('at_risk')
    expect(f.deadline).toBe(t0 + ladderMs)
    expect(f.deadline! - (t0 + 24 * hour)).toBeLessThan(ladderMs)
  })

  it('joins spans nearer than two minutes (a restart between two failing checks) into one outage', () => {
    expect(joinSpans([span(0, 10 * min), span(11 * min, 20 * min), span(30 * min, 40 * min)], 0)).toEqual([
      { from: 0, to: 20 * min },
      { from: 30 * min, to: 40 * min },
    ])
  })

  it('agrees with checking every first-attempt minute against every attempt (property)', () => {
    // Whole minutes: the exhausted set's bounds are whole minutes too, so a minute grid finds them.
    const spanArb = fc
      .tuple(fc.integer({ min: 0, max: 60 * 60 }), fc.integer({ min: 0, max: 30 * 60 }))
      .map(([from, length]) => [from * min, (from + length) * min] as const)
    fc.assert(
      fc.property(
        fc.array(spanArb, { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 90 * 60 }),
        (raw, lastOngoing, nowMin) => {
          const now = nowMin * min
          const spans = raw
            .filter(([from]) => from <= now)
            .map(([from, to], i, all) =>
              span(from, lastOngoing && i === all.length - 1 ? null : Math.min(to, now)),
            )
          if (spans.length === 0) return
          const f = forecast(spans, now, 2 * hour)
          const down = joinSpans(spans, spans.some((s) => s.to === null) ? now + 2 * ladderMs : now)
          const isDown = (t: number) => down.some((d) => d.from <= t && t <= d.to)
          const exhausted = (t: number) => offsets.every((o) => isDown(t + o))
          let firstFailed: number | null = null
          let lastFailed: number | null = null
          let firstFuture: number | null = null
          for (let t = -2 * ladderMs; t <= now; t += min) {
            if (!exhausted(t)) continue
            if (t + ladderMs <= now) {
              firstFailed ??= t
              lastFailed = t
            } else firstFuture ??= t
          }
          expect(f.failedFrom).toBe(firstFailed)
          expect(f.failedBefore).toBe(lastFailed)
          expect(f.state === 'failed').toBe(firstFailed !== null)
          const ongoing = spans.some((s) => s.to === null)
          // Failing now: deliveries keep running out every minute, so the deadline is now.
          if (ongoing && firstFuture !== null && firstFailed === null)
            expect(f.deadline).toBe(firstFuture + ladderMs)
          else if (ongoing && firstFuture !== null)
            expect(f.deadline).toBeLessThanOrEqual(firstFuture + ladderMs)
          else if (!ongoing) expect(f.deadline).toBeNull()
        },
      ),
      { numRuns: 150 },
    )
  })
})
