import { Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import type { AppContext } from '../context'
import type { Services } from '../services'
import { registerListenerTotals, registerStorageOk } from '../meters'
import { clockGauges } from '../clock'
import type { GaugeSpec } from '../clock'

/** `GET /metrics` (Prometheus text format): the figures the console shows, read at scrape time
 * from each capability's status, plus what the listener observes as it happens (ctx.meters). */
export function metricsFor(ctx: AppContext, services: Services): () => Promise<string> {
  // Each capability's own figures, registered next to its code.
  for (const capability of [services.chains, services.forward, services.alerts])
    capability.metrics(ctx.meters.registry)
  registerListenerTotals(ctx.meters, () => services.webhooks.status())
  registerStorageOk(ctx.meters, () => ctx.storage.status().state === 'ok')
  // The clock's gauges are plain data (its folder loads no prom-client: `watchdesk mcp` reads it too).
  for (const spec of clockGauges(() => services.clock.status())) gaugeOf(spec, [ctx.meters.registry])
  return () => ctx.meters.registry.metrics()
}

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
