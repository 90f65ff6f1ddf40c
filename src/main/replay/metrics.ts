import { Counter } from 'prom-client'
import type { Registry } from 'prom-client'
import type { ReplayStatus } from '../../shared/contract/replay'

/** `watchdesk_webhook_redeliveries_total{verdict}`: redeliveries classified since start, both
 * verdicts at 0 from the first scrape. */
export function registerReplayMetrics(
  registry: Registry,
  status: () => Pick<ReplayStatus, 'retries' | 'suspected'>,
): void {
  new Counter({
    name: 'watchdesk_webhook_redeliveries_total',
    help: 'Redeliveries of stored event ids classified by the replay sentinel, by verdict',
    labelNames: ['verdict'],
    registers: [registry],
    collect() {
      const s = status()
      this.reset()
      this.inc({ verdict: 'retry' }, s.retries)
      this.inc({ verdict: 'suspected_replay' }, s.suspected)
    },
  })
}
