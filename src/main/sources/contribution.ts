import type { Contribution } from '../contribution'

/** The sources capability's share of the shared places (src/main/contribution.ts). */
export const contribution = {
  name: 'sources',
  tables: ['source_cursors'],
} as const satisfies Contribution
