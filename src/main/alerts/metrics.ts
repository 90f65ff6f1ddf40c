import { Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import type { AlertRecords } from './records'

/** `GET /metrics`: the open incidents, read at scrape time. */
export function registerAlertMetrics(registry: Registry, records: Pick<AlertRecords, 'incidents'>): void {
  new Gauge({
    name: 'watchdesk_incidents_open',
    help: 'Open alert incidents',
    registers: [registry],
    collect() {
      const r = records.incidents({ open: true, limit: 1000 })
      this.set(r.ok ? r.value.length : 0)
    },
  })
}
