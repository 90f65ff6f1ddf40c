import { describe, expect, it } from 'vitest'
import { BodyBudget } from '../../../src/main/webhooks/body-budget'

describe("the listener's body budget", () => {
  it('evicts the bodies that have waited longest to make room for a new one, and never holds more than its bytes', () => {
    const budget = new BodyBudget(1_000)
    const evicted: string[] = []
    const a = budget.open(() => evicted.push('a'))
    const b = budget.open(() => evicted.push('b'))
    const c = budget.open(() => evicted.push('c'))
    expect(budget.take(a, 400)).toBe(true)
    expect(budget.take(b, 400)).toBe(true)
    expect(budget.take(c, 150)).toBe(true)
    expect(budget.inFlight()).toBe(950)
    // c needs 300 more: a (the oldest) goes, b stays.
    expect(budget.take(c, 300)).toBe(true)
    expect(evicted).toEqual(['a'])
    expect(budget.inFlight()).toBe(850)
    expect(budget.take(a, 1)).toBe(false) // an evicted body takes nothing more
    expect(budget.evicted()).toBe(1)
  })

  it('refuses a body that alone is larger than the budget, and frees what a finished body held', () => {
    const budget = new BodyBudget(1_000)
    const evicted: string[] = []
    const big = budget.open(() => evicted.push('big'))
    const small = budget.open(() => evicted.push('small'))
    expect(budget.take(small, 100)).toBe(true)
    expect(budget.take(big, 1_001)).toBe(false)
    expect(evicted).toEqual([])
    budget.release(small)
    expect(budget.inFlight()).toBe(0)
    expect(budget.take(big, 1_000)).toBe(true)
  })
})
