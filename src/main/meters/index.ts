/** What the listeners observe as it happens, kept as plain figures: no metrics library is loaded
 * to keep them (the desktop app never serves /metrics; serve loads prom-client with the first
 * registration, `registerListenerFigures` in ./registry.ts). One per back end, on the AppContext;
 * never process-wide, so two consoles in one process (tests) never mix their figures. */
export interface Meters {
  /** An accepted delivery answered after its commit (ms). */
  committed(ms: number): void
  /** A delivery the listener refused, by its HTTP status. */
  rejected(status: number): void
  /** Signature rejections (401) counted since start. */
  signatureRejections(): number
  /** The figures so far. */
  read(): ListenerFigures
}

/** The commit latency's histogram (seconds) and the refusals by reason, since start. */
export interface ListenerFigures {
  /** Upper bounds in seconds (`le`), ascending; each count is of its bucket alone (not cumulative). */
  buckets: readonly number[]
  bucketCounts: readonly number[]
  /** Observations above the last bound. */
  overflow: number
  sumSeconds: number
  count: number
  rejectedByReason: ReadonlyMap<string, number>
}

export const commitBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5] as const

/** The statuses the listener refuses with, each counted from 0. */
export const rejectedStatuses = [400, 401, 404, 405, 408, 413] as const

export const reasonOf = (status: number): string =>
  ({
    400: 'malformed',
    401: 'signature',
    404: 'unknown_path',
    405: 'method',
    408: 'timeout',
    413: 'too_large',
  })[status] ?? `http_${status}`

export function createMeters(): Meters {
  const bucketCounts = commitBuckets.map(() => 0)
  let overflow = 0
  let sumSeconds = 0
  let count = 0
  // Every reason starts at 0: a rate by reason (the dashboard's Deliveries panel) has data before
  // the first refusal.
  const rejected = new Map<string, number>(rejectedStatuses.map((s) => [reasonOf(s), 0]))
  let signature = 0
  return {
    committed(ms) {
      const seconds = ms / 1000
      const bucket = commitBuckets.findIndex((le) => seconds <= le)
      if (bucket === -1) overflow++
      else bucketCounts[bucket]!++
      sumSeconds += seconds
      count++
    },
    rejected(status) {
      if (status === 401) signature++
      const reason = reasonOf(status)
      rejected.set(reason, (rejected.get(reason) ?? 0) + 1)
    },
    signatureRejections: () => signature,
    read: () => ({
      buckets: commitBuckets,
      bucketCounts: [...bucketCounts],
      overflow,
      sumSeconds,
      count,
      rejectedByReason: new Map(rejected),
    }),
  }
}
