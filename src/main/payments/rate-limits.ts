import type { RateLimitState } from '../../shared/contract/payments'
import type { PlanLimits } from '../../shared/payments'
import type { Clock } from './pace-clock'
import { createLimiter } from './limiter'
import type { Limiter } from './limiter'

export type RateLimits = ReturnType<typeof createRateLimits>

/** One limiter per key name, and the rate-limit state of the key in use, published on every
 * change (the console's rate-limit badge). The only writer of that state. */
export function createRateLimits(clock: Clock, onChange: (state: RateLimitState) => void = () => {}) {
  const limiters = new Map<string, Limiter>()
  let state: RateLimitState = {
    keyName: null,
    masked: null,
    queued: 0,
    limitedUntil: null,
    last429At: null,
    count429: 0,
  }
  const publish = (next: Partial<RateLimitState>) => {
    state = { ...state, ...next }
    onChange(state)
  }

  return {
    state: () => state,
    queuedFor: (name: string) => limiters.get(name)?.queued ?? 0,
    forget: (name: string) => void limiters.delete(name),

    /** The key's limiter with these limits, created on first use. */
    limiterFor(name: string, limits: PlanLimits): Limiter {
      const existing = limiters.get(name)
      if (existing) {
        existing.setLimits(limits)
        return existing
      }
      const limiter = createLimiter(limits, clock, (queued) => {
        if (state.keyName === name && queued !== state.queued) publish({ queued })
      })
      limiters.set(name, limiter)
      return limiter
    },

    /** The state now follows this key; a new key starts with a clean record. */
    follow(name: string, masked: string): void {
      if (state.keyName === name) return
      publish({ keyName: name, masked, limitedUntil: null, last429At: null, count429: 0, queued: 0 })
    },

    limited: (until: number) =>
      publish({ limitedUntil: until, last429At: clock.now(), count429: state.count429 + 1 }),

    cleared(): void {
      if (state.limitedUntil !== null) publish({ limitedUntil: null })
    },
  }
}
