import { Counter, Gauge, Registry } from 'prom-client'
import type { Metric } from 'prom-client'
import { createMeters as createPlainMeters } from './index'
import type { ListenerFigures, Meters } from './index'

/** A listener's figures (./index.ts) with the registry they are shown in: the relay's, which
 * serves /metrics from its start. */
export interface RegisteredMeters extends Meters {
  registry: Registry
}

export function createMeters(): RegisteredMeters {
  const meters = createPlainMeters()
  const registry = new Registry()
  registerListenerFigures(registry, () => meters.read())
  return { ...meters, registry }
}

const commitSeconds = {
  name: 'watchdesk_listener_commit_seconds',
  help: 'Accepted webhook deliveries: from the request to the 200 answer, after the fsync-committed write',
}

/** The listener's commit latency and refusals in `registry`, read from its plain figures at scrape
 * time (kept since start, whenever the metrics library was loaded). */
export function registerListenerFigures(registry: Registry, read: () => ListenerFigures): void {
  registry.registerMetric(figuresHistogram(commitSeconds, () => read()) as unknown as Metric)
  new Counter({
    name: 'watchdesk_listener_rejected_total',
    help: 'Webhook deliveries refused by the listener, by reason',
    labelNames: ['reason'],
    registers: [registry],
    collect() {
      this.reset()
      for (const [reason, n] of read().rejectedByReason) this.inc({ reason }, n)
    },
  })
}

/** A histogram whose buckets are counted elsewhere (plain figures), in the shape a registry prints:
 * cumulative `_bucket` lines up to `+Inf`, then `_sum` and `_count`. */
function figuresHistogram(meta: { name: string; help: string }, read: () => ListenerFigures) {
  const get = async () => {
    const f = read()
    let cumulative = 0
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = []
    f.buckets.forEach((le, i) => {
      cumulative += f.bucketCounts[i]!
      values.push({ labels: { le }, value: cumulative, metricName: `${meta.name}_bucket` })
    })
    values.push(
      { labels: { le: '+Inf' }, value: f.count, metricName: `${meta.name}_bucket` },
      { labels: {}, value: f.sumSeconds, metricName: `${meta.name}_sum` },
      { labels: {}, value: f.count, metricName: `${meta.name}_count` },
    )
    return { ...meta, type: 'histogram', values, aggregator: 'sum' }
  }
  return { ...meta, type: 'histogram', aggregator: 'sum', get, reset: () => undefined }
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
export function registerListenerTotals(meters: { registry: Registry }, read: () => ListenerTotals): void {
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
export function registerStorageOk(meters: { registry: Registry }, ok: () => boolean): void {
  new Gauge({
    name: 'watchdesk_storage_ok',
    help: '1 while the database takes commits',
    registers: [meters.registry],
    collect() {
      this.set(ok() ? 1 : 0)
    },
  })
}
