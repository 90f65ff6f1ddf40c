/** Time as the limiter and back-off see it. Tests and the bench pass a virtual clock so that
 * minutes of rate-limited traffic run in milliseconds. */
export interface Clock {
  now(): number
  sleep(ms: number): Promise<void>
  /** Virtual time passes only by sleeping, so requests in flight take no time: waiters let them
   * land before jumping, as a discrete-event simulation would. */
  virtual?: boolean
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
}

/** Jumps forward on sleep; yields to the event loop so sockets in flight make progress. */
export function virtualClock(start = 1_700_000_000_000): Clock & { advance(ms: number): void } {
  let t = start
  return {
    virtual: true,
    now: () => t,
    sleep: async (ms) => {
      t = Math.max(t, t + Math.max(0, ms))
      await new Promise((resolve) => setImmediate(resolve))
    },
    advance: (ms) => {
      t += ms
    },
  }
}
