import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  attemptSchedule,
  eventTypes,
  formatAmount,
  formatDuration,
  fundingLine,
  groupOf,
  outageExpectation,
  retryDelaysMs,
  shouldNotify,
} from '../../src/shared/events'
import { Config } from '../../src/shared/config'

const min = 60_000
const hour = 60 * min

describe('event catalogue', () => {
  it('lists the fifteen types of spec 6.1 in their three groups', () => {
    expect(eventTypes).toHaveLength(15)
    expect(eventTypes.filter((t) => t.group === 'payments')).toHaveLength(6)
    expect(eventTypes.filter((t) => t.group === 'cards')).toHaveLength(5)
    expect(eventTypes.filter((t) => t.group === 'business')).toHaveLength(4)
    expect(groupOf('card.authorization.request')).toBe('cards')
    expect(groupOf('report.ready')).toBe('business')
    expect(groupOf('wallet.created')).toBe('unknown')
  })
})

describe('funding line', () => {
  it('reads 1,000 USD → 998.75 USDC for the spec sample', () => {
    const data = {
      id: 'fund_7Q2M',
      status: 'completed',
      amount: 1000,
      currency: 'USD',
      target_amount: 998.75,
      target_currency: 'USDC',
    }
    expect(fundingLine('funding.completed', data)).toBe('1,000 USD → 998.75 USDC')
  })

  it('shows the source amount alone when there is no conversion yet, and nothing for other shapes', () => {
    expect(fundingLine('funding.initiated', { amount: 250000, currency: 'EUR' })).toBe('250,000 EUR')
    expect(fundingLine('funding.completed', { amount: '1000' })).toBeNull()
    expect(fundingLine('payout.completed', { amount: 1, currency: 'USD' })).toBeNull()
  })

  it('formats every amount exactly as Intl en-US with up to 8 fraction digits, without Intl for plain ones', () => {
    const intl = new Intl.NumberFormat('en-US', { maximumFractionDigits: 8 })
    // Amounts as services send them (cents, fractions of a token), the edges of the fast path
    // (2^26, a ninth fraction digit, -0, exponents) and any double at all.
    const amount = fc.oneof(
      fc.integer({ min: -1e12, max: 1e12 }),
      fc.integer({ min: -1e12, max: 1e12 }).map((n) => n / 100),
      fc.integer({ min: -1e15, max: 1e15 }).map((n) => n / 1e8),
      fc.integer({ min: -1e15, max: 1e15 }).map((n) => n / 1e9),
      fc.constantFrom(67_108_863.99999999, 67_108_864, -67_108_864, 0.1 + 0.2, -0, 1e21, 1e-7, 999.999999995),
      fc.double(),
    )
    fc.assert(
      fc.property(amount, (n) => {
        expect(formatAmount(n)).toBe(intl.format(n))
      }),
      { numRuns: 1_000 },
    )
    expect(formatAmount(1234567.5)).toBe('1,234,567.5')
    expect(formatAmount(-1000)).toBe('-1,000')
  })
})

describe('retry schedule', () => {
  it('is 1 min, 5 min, 30 min, 2 h, 24 h (spec 6.2)', () => {
    expect(retryDelaysMs).toEqual([min, 5 * min, 30 * min, 2 * hour, 24 * hour])
  })

  it('puts delivery 4 of an event at 36 min after created_at', () => {
    const schedule = attemptSchedule(0, 4)
    expect(schedule.map((a) => a.expectedAt)).toEqual([0, min, 6 * min, 36 * min])
    expect(schedule.map((a) => a.delayMs)).toEqual([null, min, 5 * min, 30 * min])
    expect(attemptSchedule(0, 99)).toHaveLength(6)
  })

  it('says which retry brings back events sent during a 10-minute outage, and when', () => {
    const from = 100 * hour
    const to = from + 10 * min
    const expectation = outageExpectation(from, to)
    // Sent in the last minute: retry 1. Sent 1–6 min before the end: retry 2. Earlier: retry 3.
    expect(
      expectation.redeliveries.map((r) => [r.retry, (r.sentFrom - from) / min, (r.sentTo - from) / min]),
    ).toEqual([
      [1, 9, 10],
      [2, 4, 9],
      [3, 0, 4],
    ])
    const third = expectation.redeliveries[2]!
    expect([(third.arriveFrom - to) / min, (third.arriveTo - to) / min]).toEqual([26, 30])
    expect(expectation.allArriveBy).toBe(to + 30 * min)
    expect(expectation.failedIfSentBefore).toBeNull()
  })

  it('says events sent more than 26 h 36 min before the end of a long outage were marked failed', () => {
    const from = 0
    const to = 30 * hour
    const expectation = outageExpectation(from, to)
    expect(expectation.failedIfSentBefore).toBe(to - (26 * hour + 36 * min))
    expect(expectation.redeliveries.at(-1)!.retry).toBe(5)
  })

  it('formats durations for the schedule', () => {
    expect(formatDuration(850)).toBe('850 ms')
    expect(formatDuration(4200)).toBe('4.2 s')
    expect(formatDuration(5 * min)).toBe('5 min')
    expect(formatDuration(2 * hour + 36 * min)).toBe('2 h 36 min')
  })
})

describe('notifications', () => {
  it('notifies by default for failures, flagged screenings and rejected verifications only', () => {
    // The default as the app reads it: the config's alerts.eventTypes left unset.
    const defaults = Config.parse({}).alerts.eventTypes
    const notified = eventTypes.map((t) => t.type).filter((t) => shouldNotify(t, defaults))
    expect(notified).toEqual([
      'funding.failed',
      'payout.failed',
      'business.verification.rejected',
      'compliance.screening.flagged',
    ])
  })

  it('matches * against any run of characters and treats dots literally', () => {
    expect(shouldNotify('card.frozen', ['card.*'])).toBe(true)
    expect(shouldNotify('cardXfrozen', ['card.frozen'])).toBe(false)
    expect(shouldNotify('anything', ['*'])).toBe(true)
    expect(shouldNotify('payout.failed', [])).toBe(false)
  })
})
