import type { AppContext } from '../context'
import type { Services } from '../services'
import { registerListenerTotals, registerStorageOk } from '../meters'

/** `GET /metrics` (Prometheus text format): the figures the console shows, read at scrape time
 * from each capability's status, plus what the listener observes as it happens (ctx.meters). */
export function metricsFor(ctx: AppContext, services: Services): () => Promise<string> {
  // Each capability's own figures, registered next to its code.
  for (const capability of [services.chains, services.forward, services.alerts])
    capability.metrics(ctx.meters.registry)
  registerListenerTotals(ctx.meters, () => services.webhooks.status())
  registerStorageOk(ctx.meters, () => ctx.storage.status().state === 'ok')
  return () => ctx.meters.registry.metrics()
}
