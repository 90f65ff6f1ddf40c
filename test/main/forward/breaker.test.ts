import { describe, expect, it } from 'vitest'
import {
  admission,
  freshHealth,
  healthAfterChange,
  judge,
  nextAdmissionAt,
} from '../../../src/main/forward/breaker'
import type { Health } from '../../../src/main/forward/breaker'

const target = {
  name: 'app',
  url: 'http://app/hook',
  enabled: true,
  concurrency: 8,
  retrySchedule: [1_000, 5_000, 30_000],
}
const context = { now: 0, relayBudgetMs: null, authorizer: null, maxAgeMs: 24 * 3_600_000, probeMs: 10_000 }
const row = { type: 'funding.completed', attempt: 1, createdAt: 0 }
const failure = { status: 503, error: 'the target answered 503', latencyMs: 2 }
const success = { status: 200, error: null, latencyMs: 2 }

/** Failed answers at the given times, from a fresh health. */
function failAt(times: number[], answer = failure): Health {
  let h = freshHealth()
  for (const now of times) h = judge(h, target, row, answer, { ...context, now }).health
  return h
}

describe('the circuit breaker, without I/O', () => {
  it('admits the target’s concurrency while it answers, one probe once three answers in a row failed', () => {
    expect(admission(freshHealth(), target, 0, 0, 10_000)).toEqual({ limit: 8, probing: false })
    const paused = failAt([0, 0, 0])
    expect(paused.blockedUntil).toBe(1_000)
    expect(admission(paused, target, 0, 999, 10_000)).toBeNull()
    expect(admission(paused, target, 0, 1_000, 10_000)).toEqual({ limit: 1, probing: true })
    expect(nextAdmissionAt(paused, target, 500, 10_000)).toBe(1_000)
  })

  it('grows the pause per probe along the schedule, never past probeMs', () => {
    const h = failAt([0, 0, 0, 1_000, 6_000])
    expect(h.blockSteps).toBe(3)
    // The third step (30 s) capped at probeMs (10 s).
    expect(h.blockedUntil).toBe(16_000)
  })

  it('a row that failed is due on its own schedule but not before the target’s pause ends', () => {
    const paused = failAt([0, 0])
    const v = judge(paused, target, { ...row, attempt: 2 }, failure, { ...context, now: 100 })
    expect(v.state).toBe('failing')
    expect(v.dueAt).toBe(Math.max(100 + 5_000, v.health.blockedUntil))
  })

  it('a 2xx closes the breaker and marks the target recovered (its failing rows become due)', () => {
    const v = judge(failAt([0, 0, 0]), target, row, success, { ...context, now: 2_000 })
    expect(v.state).toBe('delivered')
    expect(v.health).toMatchObject({
      consecutiveFailures: 0,
      blockSteps: 0,
      blockedUntil: 0,
      recovered: true,
      lastOkAt: 2_000,
    })
  })

  it('410 Gone stops the target with the cause and the fix, until its URL changes', () => {
    const v = judge(
      freshHealth(),
      target,
      row,
      { status: 410, error: 'the target answered 410', latencyMs: 1 },
      context,
    )
    expect(v.stoppedNow).toBe(true)
    expect(v.health.stopped).toMatch(/answered 410 Gone.*Fix the URL/)
    expect(admission(v.health, target, 0, 60_000, 10_000)).toBeNull()
    expect(nextAdmissionAt(v.health, target, 0, 10_000)).toBeNull()
    const moved = healthAfterChange(v.health, target, { ...target, url: 'http://app/new' })
    expect(moved.stopped).toBeNull()
    expect(healthAfterChange(v.health, target, { ...target }).stopped).not.toBeNull()
  })

  it('gives up an authorization request at once, and a row past maxAge', () => {
    const auth = judge(
      freshHealth(),
      target,
      { ...row, type: 'card.authorization.request' },
      failure,
      context,
    )
    expect(auth.state).toBe('gave_up')
    expect(auth.error).toMatch(/notified target once, never retried/)
    const old = judge(freshHealth(), target, row, failure, { ...context, now: context.maxAgeMs })
    expect(old.state).toBe('gave_up')
    expect(old.health.gaveUp).toBe(1)
  })

  it('says an answer after the relay budget came after the fallback', () => {
    const late = judge(
      freshHealth(),
      target,
      row,
      { ...success, latencyMs: 2_000 },
      { ...context, relayBudgetMs: 1_500 },
    )
    expect(late.error).toMatch(/after the 1500 ms authorization budget/)
  })

  it('probes a target whose last attempt failed once probeMs passed without an attempt', () => {
    const once = judge(freshHealth(), target, row, failure, context).health
    expect(admission(once, target, 0, 5_000, 10_000)).toEqual({ limit: 8, probing: false })
    expect(nextAdmissionAt(once, target, 5_000, 10_000)).toBe(10_000)
    expect(admission(once, target, 0, 10_000, 10_000)).toEqual({ limit: 1, probing: true })
  })
})
