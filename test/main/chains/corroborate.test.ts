import { describe, expect, it } from 'vitest'
import { corroborate } from '../../../src/main/chains/checks/corroborate'
import type { ReferenceReading } from '../../../src/main/chains/checks/reference'
import { QualityWindow } from '../../../src/main/chains/quality'

/** The corroborated head's rule, case by case (pure: no node, no clock). N = 30 blocks. */

const ref = (name: string, head: number | null, excluded: ReferenceReading['excluded'] = null) => ({
  name,
  head,
  latencyMs: 10,
  excluded,
})
const verdictOf = (view: ReturnType<typeof corroborate>, name: string) => view.verdicts.get(name)

describe('corroborated head', () => {
  it('measures the lag against a single reference within N blocks (the older referenceUrl)', () => {
    const view = corroborate(100, [ref('a', 108)], 2, 30)
    expect(view).toMatchObject({ state: 'corroborated', head: 108, quorum: 1 })
  })

  it('calls two sources far apart disagreeing, and with a third that agrees excludes the far one as ahead', () => {
    const view = corroborate(100, [ref('a', 30_000_100)], 2, 30)
    expect(view.state).toBe('disagree')
    const three = corroborate(100, [ref('a', 30_000_100), ref('b', 101)], 2, 30)
    expect(three).toMatchObject({ state: 'corroborated', head: 101 })
    expect(verdictOf(three, 'a')).toMatchObject({ counted: false, reason: 'ahead' })
  })

  it('takes the second-highest head with a quorum of 2, so one source ahead never defines it', () => {
    const view = corroborate(100, [ref('a', 120), ref('b', 110), ref('c', 105)], 2, 30)
    expect(view).toMatchObject({ state: 'corroborated', head: 110, counted: 4 })
  })

  it('excludes a reference behind the corroborated head by more than N', () => {
    const view = corroborate(200, [ref('a', 200), ref('b', 150)], 2, 30)
    expect(view.head).toBe(200)
    expect(verdictOf(view, 'b')).toMatchObject({ counted: false, reason: 'behind' })
    expect(verdictOf(view, 'b')!.detail).toBe(
      'Its head 150 is 50 blocks behind the corroborated head (more than 30).',
    )
  })

  it('never counts the service node ahead as lag: the head is the references’', () => {
    const view = corroborate(500, [ref('a', 100), ref('b', 98)], 2, 30)
    expect(view).toMatchObject({ state: 'corroborated', head: 100 })
  })

  it('keeps a reference that failed its own checks out, with its reason, and estimates without others', () => {
    const view = corroborate(
      100,
      [ref('a', 100, { reason: 'wrong_chain', detail: 'eth_chainId answers 56' })],
      2,
      30,
    )
    expect(view.state).toBe('estimated')
    expect(view.note).toBe('Lag estimated from block age and block time: no reference passes its checks.')
    expect(verdictOf(view, 'a')).toMatchObject({ counted: false, reason: 'wrong_chain' })
  })

  it('says the sources disagree when every head is more than N from every other', () => {
    const view = corroborate(100, [ref('a', 5_000), ref('b', 20_000)], 2, 30)
    expect(view).toMatchObject({ state: 'disagree', head: null })
    expect(verdictOf(view, 'a')!.reason).toBe('disagree')
    expect(view.note).toBe(
      'Sources disagree: heads 20000, 5000, 100, no two within 30 blocks. Lag estimated from block age until they agree.',
    )
  })

  it('corroborates from the references alone while the service node does not answer', () => {
    const view = corroborate(null, [ref('a', 300), ref('b', 301)], 2, 30)
    expect(view).toMatchObject({ state: 'corroborated', head: 300 })
  })
})

describe('quality window', () => {
  it('keeps 15 minutes of polls as counts and a latency histogram: p95 within 2.5 %, old slots dropped', () => {
    const window = new QualityWindow()
    const t0 = 1_000_000_000
    for (let i = 0; i < 100; i++) window.add(t0 + i * 1000, 'ok', i + 1)
    window.add(t0 + 100_000, 'error', null)
    window.add(t0 + 101_000, 'rate_limited', null)
    window.add(t0 + 102_000, 'outage', null)
    const now = window.summary(t0 + 102_000, 0.05, 1000)
    expect(now).toMatchObject({ polls: 102, errors: 1, rateLimited: 1, errorRate: 0.0098 })
    expect(Math.abs(now.p95Ms! - 95) / 95).toBeLessThan(0.025)
    // Sixteen minutes later every slot of those polls has left the window.
    expect(window.summary(t0 + 102_000 + 16 * 60_000, 0.05, 1000)).toMatchObject({ polls: 0, p95Ms: null })
  })
})
