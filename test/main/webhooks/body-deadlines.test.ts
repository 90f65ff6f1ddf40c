import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { BodyDeadlines } from '../../../src/main/webhooks/listener'

// The listener's body time-outs share one timer; fake timers, and the fake clock they move (given
// to the deadlines in place of the performance clock), make each case exact, with no waiting.
describe('body deadlines (one timer for every body being read)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('expires each body at its own deadline, in the order they started', () => {
    const deadlines = new BodyDeadlines(1_000, Date.now)
    const expired: string[] = []
    deadlines.add(() => expired.push('first'))
    vi.advanceTimersByTime(400)
    deadlines.add(() => expired.push('second'))
    vi.advanceTimersByTime(599)
    expect(expired).toEqual([])
    vi.advanceTimersByTime(1)
    expect(expired).toEqual(['first'])
    vi.advanceTimersByTime(399)
    expect(expired).toEqual(['first'])
    vi.advanceTimersByTime(1)
    expect(expired).toEqual(['first', 'second'])
    deadlines.stop()
  })

  it('never expires a body that finished, and keeps the others running', () => {
    const deadlines = new BodyDeadlines(1_000, Date.now)
    const expired: string[] = []
    const done = deadlines.add(() => expired.push('finished in time'))
    deadlines.add(() => expired.push('slow'))
    deadlines.remove(done)
    vi.advanceTimersByTime(1_000)
    expect(expired).toEqual(['slow'])
    deadlines.stop()
  })

  it('starts its timer again for a body that begins after the others ended', () => {
    const deadlines = new BodyDeadlines(500, Date.now)
    const expired: string[] = []
    deadlines.remove(deadlines.add(() => expired.push('answered')))
    vi.advanceTimersByTime(2_000)
    deadlines.add(() => expired.push('later and slow'))
    vi.advanceTimersByTime(499)
    expect(expired).toEqual([])
    vi.advanceTimersByTime(1)
    expect(expired).toEqual(['later and slow'])
    deadlines.stop()
  })

  it('expires nothing once stopped (the listener closed)', () => {
    const deadlines = new BodyDeadlines(500, Date.now)
    const expired: string[] = []
    deadlines.add(() => expired.push('cut off by the close'))
    deadlines.stop()
    vi.advanceTimersByTime(1_000)
    expect(expired).toEqual([])
  })
})
