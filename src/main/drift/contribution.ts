import type { Contribution } from '../contribution'

/** The payload drift watch's share of the shared places (src/main/contribution.ts): the shapes it
 * learned, the changes it saw (one row per type and change: small, kept) and its cursor. */
export const contribution = {
  name: 'drift',
  tables: ['drift_shapes', 'drift_changes', 'drift_cursor'],
} as const satisfies Contribution
