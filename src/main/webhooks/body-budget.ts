/** A body being received, holding `bytes` of the listener's budget until it is released. */
export interface BodyHold {
  bytes: number
  /** Called when the budget takes its bytes back for a newer body: answer 503 and drop it. */
  evict(): void
}

/** The body bytes the webhook listener holds at once, all requests together. A body's signature
 * can only be checked once all of it has arrived, so every body is buffered; without a bound, peers
 * that send headers and part of a body and then stop hold that memory until their time-out (600
 * such peers took `listen` to +570 MB). When a chunk does not fit, the bodies that have waited
 * longest are evicted (answered 503 with Retry-After) until it does: a delivery of the service
 * arrives within milliseconds, so the oldest unfinished bodies are the stalled ones, and a delivery
 * arriving meanwhile is still read. */
export class BodyBudget {
  private held = 0
  /** Insertion order is arrival order: the oldest first. */
  private readonly holds = new Set<BodyHold>()
  private evictions = 0

  constructor(private readonly maxBytes: number) {}

  open(evict: () => void): BodyHold {
    const hold = { bytes: 0, evict }
    this.holds.add(hold)
    return hold
  }

  /** Adds `bytes` to `hold`, evicting older bodies to make room; false when it cannot fit even
   * alone (the caller answers 503 itself). */
  take(hold: BodyHold, bytes: number): boolean {
    if (!this.holds.has(hold)) return false
    if (hold.bytes + bytes > this.maxBytes) return false
    while (this.held + bytes > this.maxBytes) {
      const oldest = this.oldestOther(hold)
      if (!oldest) return false
      this.release(oldest)
      this.evictions++
      oldest.evict()
    }
    hold.bytes += bytes
    this.held += bytes
    return true
  }

  release(hold: BodyHold): void {
    if (!this.holds.delete(hold)) return
    this.held -= hold.bytes
    hold.bytes = 0
  }

  inFlight(): number {
    return this.held
  }

  evicted(): number {
    return this.evictions
  }

  private oldestOther(hold: BodyHold): BodyHold | null {
    for (const candidate of this.holds) if (candidate !== hold && candidate.bytes > 0) return candidate
    return null
  }
}
