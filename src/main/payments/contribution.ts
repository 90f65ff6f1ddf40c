import type { Contribution } from '../contribution'
import { paymentsDoctor } from './doctor'

/** The payments capability's share of the shared places (src/main/contribution.ts): no tables. */
export const contribution = {
  name: 'payments',
  tables: [],
  doctor: [paymentsDoctor],
} as const satisfies Contribution
