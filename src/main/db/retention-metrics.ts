import { Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import { retentionKinds } from './retention'
import type { RetentionState } from './retention'

/** GET /metrics: rows removed per kind (last run and since the data dir began), the last and the
 * next run. Read from the state at scrape time. */
export function registerRetentionMetrics(registry: Registry, state: () => RetentionState): void {
  new Gauge({
    name: 'watchdesk_retention_removed_rows',
    help: 'Rows removed by retention, per kind: by the last run (run="last") and in total (run="total")',
    labelNames: ['kind', 'run'],
    registers: [registry],
    collect() {
      const s = state()
      for (const kind of retentionKinds) {
        this.set({ kind, run: 'last' }, s.removed[kind])
        this.set({ kind, run: 'total' }, s.removedTotal[kind])
      }
    },
  })
  new Gauge({
    name: 'watchdesk_retention_last_run_timestamp_seconds',
    help: 'When retention last ran (0 = not yet)',
    registers: [registry],
    collect() {
      this.set((state().lastRunAt ?? 0) / 1000)
    },
  })
  new Gauge({
    name: 'watchdesk_retention_next_run_timestamp_seconds',
    help: 'When retention runs next (0 = not scheduled)',
    registers: [registry],
    collect() {
      this.set((state().nextRunAt ?? 0) / 1000)
    },
  })
}
