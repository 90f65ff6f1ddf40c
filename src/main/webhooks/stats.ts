/** Answer latencies of the last `size` deliveries, for p50/p99/max without unbounded memory. */
export class LatencyWindow {
  private readonly samples: Float64Array
  private next = 0
  private filled = 0
  total = 0

  constructor(size = 1000) {
    this.samples = new Float64Array(size)
  }

  record(ms: number): void {
    this.samples[this.next] = ms
    this.next = (this.next + 1) % this.samples.length
    this.filled = Math.min(this.filled + 1, this.samples.length)
    this.total++
  }

  summary(): { count: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null } {
    if (this.filled === 0) return { count: this.total, p50Ms: null, p99Ms: null, maxMs: null }
    const sorted = Array.from(this.samples.subarray(0, this.filled)).sort((a, b) => a - b)
    const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!)
    return { count: this.total, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: round(sorted.at(-1)!) }
  }
}

const round = (ms: number) => Math.round(ms * 100) / 100

export interface ActivitySummary {
  lastMinute: number
  lastHour: number
  lastEventAt: number | null
  since: number
}

/** New events per second over the last hour, for "events in the last minute and hour" and the
 * tray's events/min: a ring of 3,600 one-second buckets, so memory stays fixed under any rate. */
export class ActivityWindow {
  private readonly counts = new Uint32Array(3600)
  private readonly seconds = new Float64Array(3600).fill(-1)
  private lastAt: number | null = null

  /** `since`: from when the counts are complete (the start, or what was seeded from the store). */
  constructor(private since: number) {}

  record(at: number, n = 1): void {
    const second = Math.floor(at / 1000)
    const i = second % 3600
    if (this.seconds[i] !== second) {
      this.seconds[i] = second
      this.counts[i] = 0
    }
    this.counts[i] = this.counts[i]! + n
    if (this.lastAt === null || at > this.lastAt) this.lastAt = at
  }

  /** Counts read from the store at start (per second), so a restart does not say "0 in the last hour". */
  seed(buckets: readonly { second: number; count: number }[], since: number): void {
    for (const b of buckets) this.record(b.second * 1000, b.count)
    this.since = Math.min(this.since, since)
  }

  summary(now: number): ActivitySummary {
    const current = Math.floor(now / 1000)
    let lastMinute = 0
    let lastHour = 0
    for (let i = 0; i < 3600; i++) {
      const age = current - this.seconds[i]!
      if (this.seconds[i]! < 0 || age < 0 || age >= 3600) continue
      lastHour += this.counts[i]!
      if (age < 60) lastMinute += this.counts[i]!
    }
    return { lastMinute, lastHour, lastEventAt: this.lastAt, since: this.since }
  }
}

/** Counts the new events of a committed batch (a redelivery of a stored id adds no event). */
export function recordNew(
  window: ActivityWindow,
  events: readonly { summary: { receivedAt: number }; duplicate: boolean }[],
): void {
  for (const e of events) if (!e.duplicate) window.record(e.summary.receivedAt)
}
