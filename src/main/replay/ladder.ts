import type { DeliveryVerdict } from '../../shared/contract/events'

/** The service's retry delays after a failed attempt (spec 6.2.6): 1 min, 5 min, 30 min, 2 h, 24 h. */
export const retryLadderMs = [60_000, 300_000, 1_800_000, 7_200_000, 86_400_000] as const
const rungNames = ['1st', '2nd', '3rd', '4th', '5th'] as const

export interface Tolerance {
  /** At least this much either side of a rung (the service's own time-out on the failed attempt,
   * its scheduling jitter, clocks). */
  seconds: number
  /** Or this share of the rung's delay, when larger. */
  percent: number
}

export interface Arrival {
  /** When it arrived here (ms). */
  at: number
  remote: string | null
  /** Its body differed from the stored one (a conflict: its own flag, whatever the verdict). */
  conflicted: boolean
}

export interface Classified extends Arrival {
  verdict: DeliveryVerdict
  reason: string
}

/** The window around `expected` that still counts as that delay. */
function within(gap: number, expected: number, tolerance: Tolerance): boolean {
  const slack = Math.max(tolerance.seconds * 1000, (expected * tolerance.percent) / 100)
  return Math.abs(gap - expected) <= slack
}

/** The sum of the whole ladder: past it (plus tolerance) the service retries nothing any more. */
export const ladderTotalMs = retryLadderMs.reduce((a, b) => a + b, 0)

/** The rungs from `first` to `last` (0-based, inclusive) add up to the gap: the arrival is the
 * `last` retry, and the attempts in between failed before reaching this listener. */
function rungText(first: number, last: number): string {
  return first === last || first === 0
    ? `the ${rungNames[last]} retry`
    : `the ${rungNames[last]} retry (the ${rungNames[first]} to ${rungNames[last - 1]} did not reach this listener)`
}

/** A contiguous run of rungs whose delays add up to `gap`; `fromStart` only runs beginning at the
 * first rung (measured from `created_at`, the first attempt). */
function fittingRungs(
  gap: number,
  tolerance: Tolerance,
  fromStart: boolean,
): { first: number; last: number } | null {
  for (let first = 0; first < retryLadderMs.length; first++) {
    if (fromStart && first > 0) break
    let sum = 0
    for (let last = first; last < retryLadderMs.length; last++) {
      sum += retryLadderMs[last]!
      if (within(gap, sum, tolerance)) return { first, last }
    }
  }
  return null
}

const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19)

function seconds(ms: number): string {
  const s = Math.round(ms / 1000)
  if (s < 120) return `${s} s`
  if (s < 7_200) return `${Math.round(s / 60)} min`
  return `${Math.round(s / 360) / 10} h`
}

/** One redelivery against the ladder, given the arrivals before it (each answered 200, since the
 * id was stored) and `created_at`: a retry when some rung explains it (the 200 may not have reached
 * the service), a suspected replay when none does or `created_at` is older than the whole ladder. */
export function classifyRedelivery(
  arrival: Arrival,
  earlier: readonly Arrival[],
  createdMs: number | null,
  tolerance: Tolerance,
): { verdict: DeliveryVerdict; reason: string } {
  if (createdMs !== null) {
    const age = arrival.at - createdMs
    const oldest =
      ladderTotalMs + Math.max(tolerance.seconds * 1000, (ladderTotalMs * tolerance.percent) / 100)
    if (age > oldest)
      return {
        verdict: 'suspected_replay',
        reason: `created_at is ${seconds(age)} old, older than the whole retry ladder (26 h 36 min): the service no longer retries it`,
      }
    const fromCreated = fittingRungs(age, tolerance, true)
    if (fromCreated)
      return {
        verdict: 'retry',
        reason: `fits ${rungText(fromCreated.first, fromCreated.last)}, ${seconds(age)} after created_at`,
      }
  }
  // Newest first: the closest earlier arrival explains it best.
  for (const before of [...earlier].reverse()) {
    const gap = arrival.at - before.at
    const rungs = fittingRungs(gap, tolerance, false)
    if (rungs)
      return {
        verdict: 'retry',
        reason: `fits ${rungText(rungs.first, rungs.last)}, ${seconds(gap)} after the arrival at ${clock(before.at)} UTC (its 200 may not have reached the service)`,
      }
  }
  const last = earlier.at(-1)
  const after = last
    ? `${seconds(arrival.at - last.at)} after the arrival at ${clock(last.at)} UTC, answered 200`
    : ''
  return {
    verdict: 'suspected_replay',
    reason: `arrived ${after}; no retry delay (1 min, 5 min, 30 min, 2 h, 24 h) explains it`,
  }
}

/** Every arrival of one id, oldest first, with its verdict: the first is `first`, each later one
 * is classified against the arrivals before it. */
export function classifyArrivals(
  arrivals: readonly Arrival[],
  createdMs: number | null,
  tolerance: Tolerance,
): Classified[] {
  return arrivals.map((arrival, i) =>
    i === 0
      ? { ...arrival, verdict: 'first' as const, reason: 'the first arrival of this id' }
      : { ...arrival, ...classifyRedelivery(arrival, arrivals.slice(0, i), createdMs, tolerance) },
  )
}
