import { qualityWindowMs } from '../../shared/chains/health'
import type { PollQuality } from '../../shared/contract/chains'
import { percentile } from './percentile'

type Outcome = 'ok' | 'error' | 'rate_limited' | 'outage'

/** The last 15 minutes of one chain's polls: error rate (HTTP 429 counted apart as rate limited,
 * not as an error; polls during a confirmed outage left out) and p95 latency of the answers. */
export class QualityWindow {
  private readonly entries: { t: number; outcome: Outcome; latencyMs: number | null }[] = []

  add(t: number, outcome: Outcome, latencyMs: number | null): void {
    this.entries.push({ t, outcome, latencyMs })
    this.trim(t)
  }

  summary(now: number, errorRateAbove: number, p95AboveMs: number): PollQuality {
    this.trim(now)
    let polls = 0
    let errors = 0
    let rateLimited = 0
    let slow = 0
    let firstErrorAt: number | null = null
    let firstSlowAt: number | null = null
    const latencies: number[] = []
    for (const e of this.entries) {
      if (e.outcome === 'outage') continue
      polls++
      if (e.outcome === 'error') {
        errors++
        firstErrorAt ??= e.t
      } else if (e.outcome === 'rate_limited') rateLimited++
      else if (e.latencyMs !== null) {
        latencies.push(e.latencyMs)
        if (e.latencyMs > p95AboveMs) {
          slow++
          firstSlowAt ??= e.t
        }
      }
    }
    latencies.sort((a, b) => a - b)
    const p95 = percentile(latencies, 0.95)
    return {
      polls,
      errors,
      rateLimited,
      errorRate: polls === 0 ? null : Math.round((errors / polls) * 10_000) / 10_000,
      p95Ms: p95 === null ? null : Math.round(p95 * 10) / 10,
      errorRateAbove,
      p95AboveMs,
      slow,
      firstErrorAt,
      firstSlowAt,
      coveredMs: this.entries.length === 0 ? 0 : Math.min(qualityWindowMs, now - this.entries[0]!.t),
    }
  }

  private trim(now: number): void {
    let drop = 0
    while (drop < this.entries.length && this.entries[drop]!.t < now - qualityWindowMs) drop++
    if (drop > 0) this.entries.splice(0, drop)
  }
}
