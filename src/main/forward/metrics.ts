import { Counter, Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import type { ForwardStatus } from '../../shared/contract/forward'

/** `GET /metrics`: the queue (pending and failing rows of every target) and the failed attempts.
 * Labelled by capability, as before forward registered them itself. */
export function registerForwardMetrics(
  registry: Registry,
  status: () => ForwardStatus,
  failedAttempts: () => number,
): void {
  new Gauge({
    name: 'watchdesk_forward_queue_depth',
    help: 'Events waiting to be forwarded (no sample without the forward capability)',
    labelNames: ['capability'],
    registers: [registry],
    collect() {
      this.reset()
      this.set(
        { capability: 'forward' },
        status().targets.reduce((n, t) => n + t.pending, 0),
      )
    },
  })
  new Counter({
    name: 'watchdesk_forward_failures_total',
    help: 'Failed forward attempts (no sample without the forward capability)',
    labelNames: ['capability'],
    registers: [registry],
    collect() {
      this.reset()
      this.inc({ capability: 'forward' }, failedAttempts())
    },
  })
}
