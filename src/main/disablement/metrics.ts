import { Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import { scrapedTotals } from '../meters/registry'
import type { DisablementWatch } from './watch'

/** /metrics: endpoints at risk and with failed deliveries now, the deadline of each, and how many
 * warnings and failures the watch raised since start (counters, 0 until one). */
export function registerDisablementMetrics(registry: Registry, watch: () => DisablementWatch | null): void {
  const endpoints = () => watch()?.status().endpoints ?? []
  new Gauge({
    name: 'watchdesk_endpoint_disablement_state',
    help: 'Per webhook endpoint, one-hot: clear, at_risk (deliveries marked failed within the lead), failed',
    labelNames: ['endpoint', 'state'],
    registers: [registry],
    collect() {
      this.reset()
      for (const e of endpoints())
        for (const state of ['clear', 'at_risk', 'failed'] as const)
          this.set({ endpoint: e.endpoint, state }, e.state === state ? 1 : 0)
    },
  })
  new Gauge({
    name: 'watchdesk_endpoint_retry_deadline_timestamp_seconds',
    help: 'When the outage under way makes the first deliveries use their last retry (only while one lasts)',
    labelNames: ['endpoint'],
    registers: [registry],
    collect() {
      this.reset()
      for (const e of endpoints())
        if (e.deadline !== null) this.set({ endpoint: e.endpoint }, e.deadline / 1000)
    },
  })
  const total = scrapedTotals(registry, () => watch()?.counts() ?? { warnings: 0, failures: 0 })
  total(
    'watchdesk_endpoint_disable_warnings_total',
    'Endpoints that turned at_risk since start',
    (c) => c.warnings,
  )
  total(
    'watchdesk_endpoint_deliveries_failed_total',
    'Endpoints whose deliveries were marked failed, seen since start',
    (c) => c.failures,
  )
}
