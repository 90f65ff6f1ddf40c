import { defaultP95AboveMs, qualityWindowMs } from '../../shared/chains/health'
import type { PollQuality } from '../../shared/contract/chains'

export type Outcome = 'ok' | 'error' | 'rate_limited' | 'outage'

/** Slots of the window: a poll lands in the slot of its time; slots older than 15 min are reset. */
const slotMs = 15_000
const slots = qualityWindowMs / slotMs + 1
/** Latency histogram: 1.05× wide buckets from 0.1 ms, so p95 is within 2.5 % of the sample's. */
const bucketBase = 0.1
const bucketGrowth = 1.05
const buckets = Math.ceil(Math.log(600_000 / bucketBase) / Math.log(bucketGrowth)) + 1
const bucketOf = (ms: number) =>
  Math.min(
    buckets - 1,
    Math.max(0, Math.floor(Math.log(Math.max(ms, bucketBase) / bucketBase) / Math.log(bucketGrowth))),
  )
/** The bucket's geometric middle: what a latency in it is reported as. */
const valueOf = (bucket: number) => bucketBase * bucketGrowth ** (bucket + 0.5)

/** The last 15 minutes of one source's polls as aggregates, not samples (the memory stays flat
 * however often it is polled): error rate (HTTP 429 counted apart as rate limited, not as an
 * error; polls during a confirmed outage left out) and p95 latency of the answers. */
export class QualityWindow {
  /** Per slot: its start, polls, errors, rate limited, and a latency histogram. */
  private readonly starts = new Float64Array(slots).fill(-Infinity)
  private readonly counts = new Uint32Array(slots * 3)
  /** Empty for a window that only counts (a reference's score needs no p95). */
  private readonly latencies: Uint32Array
  /** Per slot, for the alert rules' evidence: its first poll, first failed poll and first slow
   * answer (NaN: none), and its slow answers. */
  private readonly firstPollAt = new Float64Array(slots).fill(NaN)
  private readonly firstErrorAt = new Float64Array(slots).fill(NaN)
  private readonly firstSlowAt = new Float64Array(slots).fill(NaN)
  private readonly slow = new Uint32Array(slots)
  /** Slower than this is a slow answer: the latency limit as of the last summary. */
  private slowAboveMs = defaultP95AboveMs

  constructor(options: { latency: boolean } = { latency: true }) {
    this.latencies = new Uint32Array(options.latency ? slots * buckets : 0)
  }

  add(t: number, outcome: Outcome, latencyMs: number | null): void {
    if (outcome === 'outage') return
    const i = this.slot(t)
    this.counts[i * 3]! += 1
    if (Number.isNaN(this.firstPollAt[i]!)) this.firstPollAt[i] = t
    if (outcome === 'error') {
      this.counts[i * 3 + 1]! += 1
      if (Number.isNaN(this.firstErrorAt[i]!)) this.firstErrorAt[i] = t
    } else if (outcome === 'rate_limited') this.counts[i * 3 + 2]! += 1
    else if (latencyMs !== null) {
      if (this.latencies.length > 0) this.latencies[i * buckets + bucketOf(latencyMs)]! += 1
      if (latencyMs > this.slowAboveMs) {
        this.slow[i]! += 1
        if (Number.isNaN(this.firstSlowAt[i]!)) this.firstSlowAt[i] = t
      }
    }
  }

  summary(now: number, errorRateAbove: number, p95AboveMs: number): PollQuality {
    let polls = 0
    let errors = 0
    let rateLimited = 0
    const merged = scratch.fill(0)
    let answered = 0
    let slow = 0
    let firstPollAt = Infinity
    let firstErrorAt = Infinity
    let firstSlowAt = Infinity
    this.slowAboveMs = p95AboveMs
    for (let i = 0; i < slots; i++) {
      if (this.counts[i * 3] === 0 || !this.live(i, now)) continue
      polls += this.counts[i * 3]!
      errors += this.counts[i * 3 + 1]!
      rateLimited += this.counts[i * 3 + 2]!
      slow += this.slow[i]!
      // NaN never wins a comparison: slots without one are skipped.
      if (this.firstPollAt[i]! < firstPollAt) firstPollAt = this.firstPollAt[i]!
      if (this.firstErrorAt[i]! < firstErrorAt) firstErrorAt = this.firstErrorAt[i]!
      if (this.firstSlowAt[i]! < firstSlowAt) firstSlowAt = this.firstSlowAt[i]!
      for (let b = 0; b < buckets && this.latencies.length > 0; b++) {
        const n = this.latencies[i * buckets + b]!
        merged[b]! += n
        answered += n
      }
    }
    const p95 = percentileOf(merged, answered, 0.95)
    return {
      polls,
      errors,
      rateLimited,
      errorRate: polls === 0 ? null : Math.round((errors / polls) * 10_000) / 10_000,
      p95Ms: p95 === null ? null : Math.round(p95 * 10) / 10,
      errorRateAbove,
      p95AboveMs,
      slow,
      firstErrorAt: Number.isFinite(firstErrorAt) ? firstErrorAt : null,
      firstSlowAt: Number.isFinite(firstSlowAt) ? firstSlowAt : null,
      coveredMs: Number.isFinite(firstPollAt) ? Math.min(qualityWindowMs, Math.max(0, now - firstPollAt)) : 0,
    }
  }

  /** Counts only (no histogram): for the per-source scores. */
  counts15(now: number): { polls: number; errors: number; rateLimited: number } {
    const out = { polls: 0, errors: 0, rateLimited: 0 }
    for (let i = 0; i < slots; i++) {
      if (this.counts[i * 3] === 0 || !this.live(i, now)) continue
      out.polls += this.counts[i * 3]!
      out.errors += this.counts[i * 3 + 1]!
      out.rateLimited += this.counts[i * 3 + 2]!
    }
    return out
  }

  private live(i: number, now: number): boolean {
    return this.starts[i]! > now - qualityWindowMs - slotMs && this.starts[i]! <= now
  }

  private slot(t: number): number {
    const start = Math.floor(t / slotMs) * slotMs
    const i = Math.floor(start / slotMs) % slots
    if (this.starts[i] !== start) {
      this.starts[i] = start
      this.counts.fill(0, i * 3, i * 3 + 3)
      this.firstPollAt[i] = NaN
      this.firstErrorAt[i] = NaN
      this.firstSlowAt[i] = NaN
      this.slow[i] = 0
      if (this.latencies.length > 0) this.latencies.fill(0, i * buckets, (i + 1) * buckets)
    }
    return i
  }
}

/** One histogram to merge into, reused: summaries are made one at a time. */
const scratch = new Uint32Array(buckets)

function percentileOf(histogram: Uint32Array, total: number, p: number): number | null {
  if (total === 0) return null
  const rank = Math.ceil(p * total)
  let seen = 0
  for (let b = 0; b < histogram.length; b++) {
    seen += histogram[b]!
    if (seen >= rank) return valueOf(b)
  }
  return null
}
