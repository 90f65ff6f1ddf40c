import type { Contribution } from '../contribution'

/** The payments capability's share of the shared places (src/main/contribution.ts): no tables. */
export const contribution = {
  name: 'payments',
  tables: [],
} as const satisfies Contribution
