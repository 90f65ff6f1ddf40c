import type { Database } from 'better-sqlite3'
import { readSnapshot } from '../db/snapshot'
import type { DriftStatus, ShapeDrift } from '../../shared/contract/drift'
import type { DriftConfig } from '../../shared/drift'
import { acknowledgeEntry, isAcknowledged } from '../../shared/drift'
import type { LearnedShape } from './shape'
import { describeChange } from './shape'
import { createDriftStore } from './store'
import type { DriftRecord } from './store'

export const summaryOf = (d: Pick<DriftRecord, 'changes'>): string => d.changes.map(describeChange).join('; ')

export const isDriftAcknowledged = (cfg: Pick<DriftConfig, 'acknowledged'>, d: DriftRecord): boolean =>
  d.changes.every((c) => isAcknowledged(cfg.acknowledged, d.type, c))

/** The status the views, the CLI and MCP show, from the learned shapes and the changes. */
export function statusOf(
  shapes: Iterable<LearnedShape>,
  drifts: DriftRecord[],
  readThrough: number,
  cfg: DriftConfig,
  problem: string | null,
): DriftStatus {
  const shown: ShapeDrift[] = drifts.map((d) => ({
    ...d,
    acknowledged: isDriftAcknowledged(cfg, d),
    summary: summaryOf(d),
  }))
  return {
    enabled: cfg.enabled,
    learnEvents: cfg.learnEvents,
    types: [...shapes]
      .map((s) => ({
        type: s.type,
        events: s.events,
        fields: s.fields.size,
        learning: s.events < cfg.learnEvents,
      }))
      .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0)),
    drifts: shown,
    unacknowledged: shown.filter((d) => !d.acknowledged).length,
    readThrough,
    problem,
  }
}

/** The status as saved (the CLI and MCP, a second process reading the data dir): what the
 * console's watch saved last, at most 10 s behind it while events arrive. */
export function readDriftStatus(db: Database, cfg: DriftConfig): DriftStatus {
  const store = createDriftStore(db)
  // One snapshot: a save of the watch (changes, shapes and cursor in one transaction) landing
  // between the reads would show a change of a type the shapes do not list yet.
  return readSnapshot(db, () => statusOf(store.shapes(), store.drifts(200), store.cursor(), cfg, null))
}

/** The `drift.acknowledged` entries that acknowledge this change, those not yet covered. */
export function entriesToAcknowledge(cfg: Pick<DriftConfig, 'acknowledged'>, d: DriftRecord): string[] {
  return [
    ...new Set(
      d.changes
        .filter((c) => !isAcknowledged(cfg.acknowledged, d.type, c))
        .map((c) => acknowledgeEntry(d.type, c)),
    ),
  ]
}

/** A config.json mutation adding entries to `drift.acknowledged` (through the config's one writer). */
export function addAcknowledged(entries: string[]) {
  return (saved: Record<string, unknown>): void => {
    const drift = (saved.drift ?? {}) as Record<string, unknown>
    const list = Array.isArray(drift.acknowledged) ? (drift.acknowledged as string[]) : []
    saved.drift = { ...drift, acknowledged: [...list, ...entries.filter((e) => !list.includes(e))] }
  }
}
