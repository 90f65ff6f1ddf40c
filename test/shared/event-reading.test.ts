import { describe, expect, it } from 'vitest'
import { attemptOfReceipt, formatEventDelay, fundingLine } from '../../src/shared/events'

/** Issue 10: views an operator reads correctly. */
describe('reading an event', () => {
  const created = '2026-03-01T10:00:00Z'
  const createdMs = Date.parse(created)

  it('shows the delay with the precision created_at has: whole seconds, "< 1 s" below one', () => {
    expect(formatEventDelay(created, createdMs, createdMs + 437)).toBe('< 1 s')
    expect(formatEventDelay(created, createdMs, createdMs + 2_870)).toBe('2 s')
    expect(formatEventDelay(created, createdMs, createdMs + 185_000)).toBe('3 min')
    expect(formatEventDelay(created, createdMs, createdMs - 5_000)).toBe('-5.0 s (the clocks differ)')
    expect(formatEventDelay('2026-03-01T10:00:00.250Z', createdMs + 250, createdMs + 687)).toBe('437 ms')
  })

  it('maps each receipt to the attempt its time matches, not to its count', () => {
    expect(attemptOfReceipt(createdMs, createdMs + 300)).toBe(1)
    expect(attemptOfReceipt(createdMs, createdMs + 60_400)).toBe(2)
    // The second receipt, after the 1 min retry was lost too, is the 6 min attempt (retry 2).
    expect(attemptOfReceipt(createdMs, createdMs + 6 * 60_000 + 900)).toBe(3)
    expect(attemptOfReceipt(createdMs, createdMs + 27 * 3_600_000)).toBe(6)
  })

  it('does not show a failed funding as a completed conversion', () => {
    const data = { amount: 1000, currency: 'USD', target_amount: 998.75, target_currency: 'USDC' }
    expect(fundingLine('funding.completed', data)).toBe('1,000 USD → 998.75 USDC')
    expect(fundingLine('funding.failed', data)).toBe('1,000 USD · failed, nothing converted to USDC')
    expect(fundingLine('funding.failed', data)).not.toContain('→')
    expect(fundingLine('funding.initiated', data)).toBe(
      '1,000 USD → 998.75 USDC (initiated, not yet converted)',
    )
  })
})
