// Type only: the forward worker loads this file under Node's type stripping, where a value
// import needs its extension.
import type { Disposable } from './disposable'

/** Time as the poller sees it: when it is, and a way to be called back later. The app uses the
 * system clock; tests pass a manual one and move time themselves, so nothing waits on the wall. */
export interface PollClock {
  now(): number
  /** Calls `fn` once, `ms` from now; disposing the result cancels it. */
  after(ms: number, fn: () => void): Disposable
}

export const systemPollClock: PollClock = {
  now: () => Date.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms)
    return { dispose: () => clearTimeout(timer) }
  },
}
