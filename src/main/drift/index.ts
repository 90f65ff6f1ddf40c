/** Payload drift watch (issue 32.5): each event type's `data` shape learned from committed events;
 * a field added, removed or retyped → one `webhook.shape_changed` warning per type and change,
 * naming the fields and the first event, until acknowledged (`drift.acknowledged`). */
import type { ServiceMetrics } from '../contribution'
import type { AppContext } from '../context'
import { startDriftWatch } from './watch'
import type { DriftWatch, DriftWatchDeps } from './watch'

export { startDriftWatch, shapeChangedRule } from './watch'
export type { DriftWatch, DriftWatchDeps, ShapeCondition } from './watch'
export { createDriftStore, driftTables } from './store'
export type { DriftRecord } from './store'
export { addAcknowledged, entriesToAcknowledge, readDriftStatus } from './status'
export { describeChange } from './shape'
export type { LearnedShape } from './shape'
export { contribution } from './contribution'

/** What the console's drift watch needs of the others (services.ts wires them). */
export interface DriftNeeds {
  /** Stored events after `seq` with their `data` (the webhooks store's read port). */
  readPage: DriftWatchDeps['readPage']
  /** A change's warning, to the alerts' incidents. */
  condition: DriftWatchDeps['condition']
}

/** The console's drift watch, with its figures for `/metrics`. */
export type ConsoleDriftWatch = DriftWatch & ServiceMetrics

/** The payload drift watch over the console's database: a follower of committed events, warning
 * through the alerts' incidents, following acknowledgements made in the config (CLI, hand edits). */
export function startDrift(ctx: AppContext, needs: DriftNeeds): ConsoleDriftWatch {
  const drift = startDriftWatch({
    db: ctx.db,
    committed: ctx.committed,
    readPage: needs.readPage,
    config: () => ctx.config().drift,
    condition: needs.condition,
    publish: (status) => ctx.push.publish('drift.status', status),
    log: ctx.log.child({ capability: 'drift' }),
    now: () => Date.now(),
  })
  const offConfig = ctx.onConfigChange(() => drift.acknowledgementsChanged())
  return {
    ...drift,
    metrics: async (registry) =>
      (await import('./metrics')).registerDriftMetrics(registry, () => drift.totals()),
    dispose: () => (offConfig.dispose(), drift.dispose()),
  }
}
