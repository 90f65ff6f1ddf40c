import { describe, expect, it } from 'vitest'
import { eventTypes } from '../../src/shared/events'
import { closest, didYouMean } from '../../src/shared/suggest'

const types = eventTypes.map((t) => t.type)

describe('did you mean', () => {
  it('names the close event type for a typo', () => {
    expect(closest('funding.complete', types)).toBe('funding.completed')
    expect(closest('Payout.Faild', types)).toBe('payout.failed')
    expect(didYouMean('funding.complete', types)).toBe(' Did you mean funding.completed?')
  })

  it('names nothing when nothing is close (a made-up type is not "corrected")', () => {
    expect(closest('invoice.paid', types)).toBeNull()
    expect(didYouMean('zzz', types)).toBe('')
  })
})
