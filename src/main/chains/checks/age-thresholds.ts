import type { Thresholds } from '../../../shared/chains/health'

/** The block-age thresholds a chain is judged by, from its own block-time distribution: the
 * configured (or default) ones, raised to a few times the highest ages this chain shows while
 * well (its 99th percentile over the last hour of polls), so a chain whose pauses vary with
 * demand is not called late for a normal pause. With hysteresis: a chain once late is well again
 * only below 80 % of the threshold, so an age hovering around it does not flap. */

/** Ages measured while well, at most an hour's worth of 5 s polls. */
const maxSamples = 720
/** Before this many ages, the distribution says nothing yet: the configured thresholds hold. */
const minSamples = 60
const lateFactor = 2
const stalledFactor = 3
const leaveFactor = 0.8

/** The first index in `sorted` whose value is not below `value`. */
function lowerBound(sorted: number[], value: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]! < value) lo = mid + 1
    else hi = mid
  }
  return lo
}

export class AgeThresholds {
  /** The ages in the order they came (the oldest leaves first)… */
  private readonly ages: number[] = []
  /** …and the same ages kept sorted, so the percentile each poll asks for is a lookup: sorting
   * 720 ages at every poll of every chain was half of a poll's own CPU (bench:chains profile). */
  private readonly sorted: number[] = []
  private late = false

  /** The thresholds for this poll; when the last poll found the head late (lagging, stalled or
   * halted), leaving takes a margin. */
  current(base: Thresholds): Thresholds {
    const p99 = this.typicalHigh()
    const raised =
      p99 === null
        ? base
        : {
            laggingAfterSeconds: Math.max(base.laggingAfterSeconds, Math.ceil(lateFactor * p99)),
            stalledAfterSeconds: Math.max(base.stalledAfterSeconds, Math.ceil(stalledFactor * p99)),
          }
    return this.late ? { ...raised, hold: leaveFactor } : raised
  }

  /** This poll's block age and whether the evaluation found the head late; only the ages of a
   * well chain feed the distribution (a stall must not teach it that stalls are normal). */
  observe(ageSeconds: number | null, late: boolean): void {
    this.late = late
    if (late || ageSeconds === null) return
    this.ages.push(ageSeconds)
    this.sorted.splice(lowerBound(this.sorted, ageSeconds), 0, ageSeconds)
    if (this.ages.length <= maxSamples) return
    const oldest = this.ages.shift()!
    this.sorted.splice(lowerBound(this.sorted, oldest), 1)
  }

  /** The 99th percentile of the ages seen while well; null before enough polls. */
  typicalHigh(): number | null {
    const sorted = this.sorted
    if (sorted.length < minSamples) return null
    return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))]!
  }
}
