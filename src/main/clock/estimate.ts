import type { ClockReference, ClockStatus } from '../../shared/contract/clock'
import type { TimeReading } from '../../shared/time-references'

/** The local clock's offset from independent references, each read as a lower envelope: a block
 * is first seen, an HTTP Date received, a webhook delivered only AFTER the reference stamped it,
 * so (local time − stamp) is the offset plus a delay that is never negative. The smallest value of
 * a short window is therefore the best estimate; a single sample is corrected by half its
 * resolution (half a block time, half a second), the expected age of a stamp read at a random
 * moment. Chains: each chain's envelope, then their median (a lagging chain cannot move it).
 * The kinds (chains, RPC gateway Date, payments API Date, webhooks) then vote: their median is
 * the offset, and it is trusted (`off`, corrected) only when two kinds agree on it. */

export interface EstimatorOptions {
  thresholdSeconds: number
  /** How long a sample of the chains and the HTTP dates counts (a jumped clock is followed within it). */
  windowMs?: number
  /** Webhooks arrive rarely: their samples count longer. */
  webhookWindowMs?: number
}

interface Sample {
  at: number
  value: number
}

const defaultWindowMs = 2 * 60_000
const defaultWebhookWindowMs = 30 * 60_000
const maxSamples = 240
/** Chains below this many (with a new block in the window) are not counted: one or two lagging
 * chains must not pass for a clock offset. */
export const minChains = 3

class Envelope {
  private samples: Sample[] = []
  constructor(
    private readonly windowMs: number,
    /** Half of it is subtracted while the envelope holds one sample. */
    public resolutionMs: number,
  ) {}

  add(at: number, value: number): void {
    this.samples.push({ at, value })
    if (this.samples.length > maxSamples) this.samples.shift()
  }

  prune(now: number): void {
    this.samples = this.samples.filter((s) => s.at > now - this.windowMs && s.at <= now + this.windowMs)
  }

  get count(): number {
    return this.samples.length
  }

  /** The offset in ms, or null without samples. */
  estimate(): number | null {
    if (this.samples.length === 0) return null
    const min = Math.min(...this.samples.map((s) => s.value))
    return this.samples.length === 1 ? min - this.resolutionMs / 2 : min
  }
}

export function median(values: number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const round1 = (ms: number) => Math.round(ms / 100) / 10

export type ClockVerdict = Omit<ClockStatus, 'at' | 'message' | 'fix'>

export class ClockEstimator {
  private readonly chains = new Map<number, { lastStamp: number; envelope: Envelope }>()
  private readonly rpc: Envelope
  private readonly api: Envelope
  private readonly webhooks: Envelope
  private readonly windowMs: number
  private wasOff = false
  thresholdSeconds: number

  constructor(options: EstimatorOptions) {
    this.thresholdSeconds = options.thresholdSeconds
    this.windowMs = options.windowMs ?? defaultWindowMs
    this.rpc = new Envelope(this.windowMs, 1000)
    this.api = new Envelope(this.windowMs, 1000)
    this.webhooks = new Envelope(options.webhookWindowMs ?? defaultWebhookWindowMs, 0)
  }

  observe(reading: TimeReading): void {
    if (reading.kind === 'block') return this.block(reading)
    const stamp = Date.parse(reading.date)
    if (!Number.isFinite(stamp)) return
    ;(reading.source === 'rpc' ? this.rpc : this.api).add(reading.localMs, reading.localMs - stamp)
  }

  /** A webhook's first delivery: `createdAtMs` stamped by the service, arrival by this machine. */
  observeWebhook(arrivedMs: number, createdAtMs: number): void {
    this.webhooks.add(arrivedMs, arrivedMs - createdAtMs)
  }

  private block(reading: Extract<TimeReading, { kind: 'block' }>): void {
    let chain = this.chains.get(reading.serviceId)
    if (!chain) {
      chain = { lastStamp: -Infinity, envelope: new Envelope(this.windowMs, reading.blockTimeMs) }
      this.chains.set(reading.serviceId, chain)
    }
    chain.envelope.resolutionMs = reading.blockTimeMs
    // Only a block's first sighting: the same head seen again is older, not a new measurement.
    if (reading.blockTimestamp <= chain.lastStamp) return
    chain.lastStamp = reading.blockTimestamp
    chain.envelope.add(reading.localMs, reading.localMs - reading.blockTimestamp * 1000)
  }

  estimate(now: number): ClockVerdict {
    const references = this.references(now)
    const counted = references.filter((r) => r.counted).map((r) => r.offsetSeconds! * 1000)
    const offsetMs = median(counted)
    const threshold = this.thresholdSeconds * 1000
    const base = { thresholdSeconds: this.thresholdSeconds, references }
    if (offsetMs === null) {
      this.wasOff = false
      return { ...base, state: 'unknown', offsetSeconds: null, correctionSeconds: 0 }
    }
    // Hysteresis: once off, the clock is fine again only below 80 % of the threshold.
    const limit = this.wasOff ? threshold * 0.8 : threshold
    const offsetSeconds = round1(offsetMs)
    if (Math.abs(offsetMs) <= limit) {
      this.wasOff = false
      return { ...base, state: 'ok', offsetSeconds, correctionSeconds: 0 }
    }
    const tolerance = Math.max(5_000, Math.abs(offsetMs) / 4)
    const agreeing = counted.filter((v) => Math.abs(v - offsetMs) <= tolerance)
    const state = agreeing.length >= 2 ? 'off' : counted.length === 1 ? 'unconfirmed' : 'disagree'
    this.wasOff = state === 'off'
    const correctionMs = state === 'off' ? median(agreeing)! : 0
    return { ...base, state, offsetSeconds, correctionSeconds: round1(correctionMs) }
  }

  private references(now: number): ClockReference[] {
    for (const e of [this.rpc, this.api, this.webhooks]) e.prune(now)
    const perChain: number[] = []
    for (const chain of this.chains.values()) {
      chain.envelope.prune(now)
      const estimate = chain.envelope.estimate()
      if (estimate !== null) perChain.push(estimate)
    }
    const chains = median(perChain)
    const of = (kind: ClockReference['kind'], label: string, e: Envelope): ClockReference => {
      const estimate = e.estimate()
      return {
        kind,
        label,
        offsetSeconds: estimate === null ? null : round1(estimate),
        samples: e.count,
        counted: estimate !== null,
      }
    }
    return [
      {
        kind: 'chains',
        label: "the chains' newest blocks",
        offsetSeconds: chains === null ? null : round1(chains),
        samples: perChain.length,
        counted: perChain.length >= minChains,
      },
      of('rpc_date', "the RPC gateway's Date", this.rpc),
      of('api_date', "the payments API's Date", this.api),
      of('webhooks', "webhooks' created_at", this.webhooks),
    ]
  }
}
