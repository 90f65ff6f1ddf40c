import type { PollClock } from '../../src/shared/clock'
import { toDisposable } from '../../src/shared/disposable'

export interface ManualClock extends PollClock {
  /** Moves time forward and runs, in time order, every callback that has come due. */
  advance(ms: number): void
  /** Sets the time (forward or back) without running anything. */
  set(t: number): void
  /** How many callbacks wait to come due. */
  pending(): number
}

/** A clock that moves only when the test moves it: the poller's timers come due on `advance`,
 * never on the wall clock. */
export function manualClock(start = Date.now()): ManualClock {
  let t = start
  let nextId = 0
  const waiting = new Map<number, { due: number; fn: () => void }>()
  return {
    now: () => t,
    after(ms, fn) {
      const id = nextId++
      waiting.set(id, { due: t + Math.max(0, ms), fn })
      return toDisposable(() => waiting.delete(id))
    },
    advance(ms) {
      const until = t + ms
      for (;;) {
        let next: [number, { due: number; fn: () => void }] | null = null
        for (const entry of waiting)
          if (entry[1].due <= until && (!next || entry[1].due < next[1].due)) next = entry
        if (!next) break
        waiting.delete(next[0])
        t = Math.max(t, next[1].due)
        next[1].fn()
      }
      t = until
    },
    set(next) {
      t = next
    },
    pending: () => waiting.size,
  }
}
