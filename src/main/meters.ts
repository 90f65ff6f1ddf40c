import { Counter, Gauge, Histogram, Registry } from 'prom-client'

/** What other capabilities feed into `GET /metrics` as it happens (the rest is read from their
 * status at scrape time). One per back end, on the AppContext; never a process-wide registry, so
 * two consoles in one process (tests) never mix their figures. */
export interface Meters {
  registry: Registry
  /** An accepted delivery answered after its commit (ms). */
  committed(ms: number): void
  /** A delivery the listener refused, by its HTTP status. */
  rejected(status: number): void
  /** Signature rejections (401) counted since start. */
  signatureRejections(): number
}

const reasonOf = (status: number): string =>
  ({
    400: 'malformed',
    401: 'signature',
    404: 'unknown_path',
    405: 'method',
    408: 'timeout',
    413: 'too_large',
  })[status] ?? `http_${status}`

export function createMeters(): Meters {
  const registry = new Registry()
  const commit = new Histogram({
    name: 'watchdesk_listener_commit_seconds',
    help: 'Accepted webhook deliveries: from the request to the 200 answer, after the fsync-committed write',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  const rejected = new Counter({
    name: 'watchdesk_listener_rejected_total',
    help: 'Webhook deliveries refused by the listener, by reason',
    labelNames: ['reason'],
    registers: [registry],
  })
  // Every reason starts at 0: a rate by reason (the dashboard's Deliveries panel) has data before
  // the first refusal.
  for (const status of [400, 401, 404, 405, 408, 413]) rejected.inc({ reason: reasonOf(status) }, 0)
  let signature = 0
  return {
    registry,
    committed: (ms) => commit.observe(ms / 1000),
    rejected(status) {
      if (status === 401) signature++
      rejected.inc({ reason: reasonOf(status) })
    },
    signatureRejections: () => signature,
  }
}

/** What a listener has counted since start (the console's listener and the relay's alike). */
export interface ListenerTotals {
  listening: boolean
  accepted: number
  duplicates: number
  conflicts: number
  unavailable: number
}

/** A factory of counters whose value is read from `read()` at scrape time (a total kept elsewhere,
 * shown as a Prometheus counter): `total(name, help, pick)`. */
export function scrapedTotals<T>(
  registry: Registry,
  read: () => T,
): (name: string, help: string, pick: (t: T) => number) => Counter {
  return (name, help, pick) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset()
        this.inc(pick(read()))
      },
    })
}

/** The listener's totals as counters read at scrape time, and whether it listens. */
export function registerListenerTotals(meters: Meters, read: () => ListenerTotals): void {
  const total = scrapedTotals(meters.registry, read)
  total('watchdesk_listener_accepted_total', 'Webhook deliveries committed (new events)', (t) => t.accepted)
  total('watchdesk_listener_duplicates_total', 'Redeliveries of known events', (t) => t.duplicates)
  total('watchdesk_listener_conflicts_total', 'Redeliveries whose body differed', (t) => t.conflicts)
  total(
    'watchdesk_listener_unavailable_total',
    'Deliveries answered 503 (database not committing)',
    (t) => t.unavailable,
  )
  new Gauge({
    name: 'watchdesk_listener_up',
    help: '1 while the webhook listener listens',
    registers: [meters.registry],
    collect() {
      this.set(read().listening ? 1 : 0)
    },
  })
}

/** 1 while the store takes commits. */
export function registerStorageOk(meters: Meters, ok: () => boolean): void {
  new Gauge({
    name: 'watchdesk_storage_ok',
    help: '1 while the database takes commits',
    registers: [meters.registry],
    collect() {
      this.set(ok() ? 1 : 0)
    },
  })
}
