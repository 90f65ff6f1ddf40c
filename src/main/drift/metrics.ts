import { Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import { scrapedTotals } from '../meters/registry'

/** The drift watch in /metrics: changes seen, those still warning, events read (0 until it reads). */
export function registerDriftMetrics(
  registry: Registry,
  read: () => { changes: number; unacknowledged: number; eventsRead: number },
): void {
  const total = scrapedTotals(registry, read)
  total(
    'watchdesk_webhook_shape_changes_total',
    'Payload shape changes seen (an event adding, removing or retyping fields of its type)',
    (t) => t.changes,
  )
  total(
    'watchdesk_webhook_shape_events_read_total',
    'Events whose data the drift watch read since start',
    (t) => t.eventsRead,
  )
  new Gauge({
    name: 'watchdesk_webhook_shape_changes_unacknowledged',
    help: 'Payload shape changes still warning (not covered by drift.acknowledged)',
    registers: [registry],
    collect() {
      this.set(read().unacknowledged)
    },
  })
}
