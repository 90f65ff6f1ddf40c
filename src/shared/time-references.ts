/** Readings of other clocks, reported by the capabilities that see them (chains: head block
 * stamps and the RPC gateway's HTTP Date; payments: the API's HTTP Date), and the correction the
 * clock guard (src/main/clock) found. The composer joins them: neither side imports the other. */

export type TimeReading =
  /** A chain's head block, first seen at `localMs` (this machine's clock, as the poll read it). */
  | { kind: 'block'; serviceId: number; localMs: number; blockTimestamp: number; blockTimeMs: number }
  /** An HTTP `Date` header (whole seconds) received at `localMs`. */
  | { kind: 'http_date'; source: 'rpc' | 'api'; localMs: number; date: string }

export interface TimeReferences {
  /** Milliseconds to subtract from the local clock to get the references' time: 0 unless the clock
   * guard found the clock off by more than its threshold, with the references agreeing. */
  correctionMs(): number
  observe(reading: TimeReading): void
}

export const noTimeReferences: TimeReferences = {
  correctionMs: () => 0,
  observe: () => undefined,
}
