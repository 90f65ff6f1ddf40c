/** The one way tests wait: poll a condition until it holds or a deadline passes, then fail with
 * what was awaited. Never a fixed sleep. `probe` returns the awaited value, or undefined, null or
 * false while it is not there yet. */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  { timeoutMs = 8000, intervalMs = 25 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined && value !== null && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

/** Lets the event loop turn until `condition` holds (at most `turns` times), for code driven by
 * scripted stand-ins that settles within a few turns and never on the wall clock. */
export async function settles(condition: () => boolean, what: string, turns = 1000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return
    await new Promise((resolve) => setImmediate(resolve))
  }
  if (!condition()) throw new Error(`${what} did not happen within ${turns} turns of the event loop`)
}
