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
