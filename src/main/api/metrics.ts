import { Gauge, Registry } from 'prom-client'
import type { AppContext } from '../context'
import type { ServiceMetrics } from '../contribution'
import type { Services } from '../services'
import { registerListenerFigures, registerListenerTotals, registerStorageOk } from '../meters/registry'
import { clockGauges } from '../clock'
import type { GaugeSpec } from '../clock'

/** `GET /metrics` (Prometheus text format): the figures the console shows, read at scrape time
 * from each capability's status, plus what the listener observed as it happened (ctx.meters' plain
 * figures). This module loads prom-client: the back end imports it when metrics are first needed. */
export function metricsFor(ctx: AppContext, services: Services): () => Promise<string> {
  const registry = new Registry()
  registerListenerFigures(registry, () => ctx.meters.read())
  // Each capability's own figures, registered next to its code (each loads its module with them).
  const registered = Promise.all(
    Object.values(services)
      .filter(hasMetrics)
      .map((capability) => capability.metrics(registry)),
  )
  // A module that fails to load is the scrape's error (answered 500), not an unhandled rejection now.
  registered.catch(() => undefined)
  registerListenerTotals({ registry }, () => services.webhooks.status())
  registerStorageOk({ registry }, () => ctx.storage.status().state === 'ok')
  // The clock's gauges are plain data (its folder loads no prom-client: `watchdesk mcp` reads it too).
  for (const spec of clockGauges(() => services.clock.status())) gaugeOf(spec, [registry])
  return async () => {
    await registered
    return registry.metrics()
  }
}

const hasMetrics = (service: unknown): service is ServiceMetrics =>
  typeof service === 'object' &&
  service !== null &&
  typeof (service as { metrics?: unknown }).metrics === 'function'

/** A capability's gauge described as plain data, made a gauge here (read at scrape time). */
function gaugeOf(spec: GaugeSpec, registers: Registry[]): Gauge {
  return new Gauge({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers,
    collect() {
      this.reset()
      for (const { labels, value } of spec.read()) {
        if (labels) this.set(labels, value)
        else this.set(value)
      }
    },
  })
}
