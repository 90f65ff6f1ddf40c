import type { PlanLimits } from '../../shared/payments'
import type { Clock } from './pace-clock'

export interface Limiter {
  /** Waits for a slot; call the returned function when the response (or failure) has arrived. */
  acquire(): Promise<() => void>
  readonly queued: number
  setLimits(limits: PlanLimits): void
}

const windows = [
  { ms: 1_000, of: (l: PlanLimits) => l.perSecond },
  { ms: 60_000, of: (l: PlanLimits) => l.perMinute },
]

/** A sliding-window limiter that keeps to both limits of a plan (spec 8) as the service sees them.
 * A request counts from the moment it is sent until one window after its response arrived: the
 * service saw it somewhere in between, so however long it was in flight, no window the service
 * measures can hold more requests than the plan allows. FIFO, one scheduler, no busy waiting. */
export function createLimiter(
  initial: PlanLimits,
  clock: Clock,
  onQueueChange: (queued: number) => void = () => {},
): Limiter {
  let limits = initial
  let inFlight = 0
  /** Completion times, oldest first. */
  const done: number[] = []
  const waiters: (() => void)[] = []
  let wake: (() => void) | null = null
  let running = false

  const release = () => {
    inFlight--
    done.push(clock.now())
    wake?.()
  }

  /** How long until one more request may go: 0 now, a number of ms, or Infinity (wait for a release). */
  function waitMs(): number {
    const now = clock.now()
    const longest = windows[windows.length - 1]!.ms
    while (done.length > 0 && done[0]! <= now - longest) done.shift()
    let wait = 0
    for (const w of windows) {
      const limit = w.of(limits)
      const recent = countAfter(done, now - w.ms)
      if (inFlight + recent < limit) continue
      if (inFlight >= limit) return Infinity
      // The oldest completions that must leave the window before one more fits.
      const mustExpire = inFlight + recent - limit + 1
      const firstInWindow = done.length - recent
      wait = Math.max(wait, done[firstInWindow + mustExpire - 1]! + w.ms - now + 1)
    }
    return wait
  }

  async function schedule(): Promise<void> {
    if (running) return
    running = true
    try {
      while (waiters.length > 0) {
        const wait = waitMs()
        if (wait === 0) {
          inFlight++
          waiters.shift()!()
          onQueueChange(waiters.length)
          continue
        }
        // A release moves a request from in flight to recently completed: the occupancy of every
        // window stays the same, so only a wait on in-flight requests needs to hear of it.
        if (wait === Infinity || (clock.virtual && inFlight > 0)) {
          await new Promise<void>((resolve) => (wake = resolve))
          wake = null
        } else await clock.sleep(wait)
      }
    } finally {
      running = false
    }
  }

  return {
    acquire: () =>
      new Promise<() => void>((resolve) => {
        let released = false
        waiters.push(() =>
          resolve(() => {
            if (released) return
            released = true
            release()
          }),
        )
        onQueueChange(waiters.length)
        void schedule()
      }),
    get queued() {
      return waiters.length
    },
    setLimits: (next) => {
      limits = next
      wake?.()
    },
  }
}

/** Count of sorted timestamps strictly after `t` (binary search from the end). */
function countAfter(sorted: number[], t: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid]! > t) hi = mid
    else lo = mid + 1
  }
  return sorted.length - lo
}
