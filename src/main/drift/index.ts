/** Payload drift watch (issue 32.5): each event type's `data` shape learned from committed events;
 * a field added, removed or retyped → one `webhook.shape_changed` warning per type and change,
 * naming the fields and the first event, until acknowledged (`drift.acknowledged`). */
export { startDriftWatch, shapeChangedRule } from './watch'
export type { DriftWatch, DriftWatchDeps, ShapeCondition } from './watch'
export { createDriftStore, driftTables } from './store'
export type { DriftRecord } from './store'
export { addAcknowledged, entriesToAcknowledge, readDriftStatus } from './status'
export { registerDriftMetrics } from './metrics'
export { describeChange } from './shape'
export type { LearnedShape } from './shape'
export { contribution } from './contribution'
