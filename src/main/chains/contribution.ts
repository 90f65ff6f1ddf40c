import type { Contribution } from '../contribution'
import { chainsDoctor } from './doctor'

/** The chains capability's share of the shared places (src/main/contribution.ts). Its samples
 * age by `history.*`, in the history store itself (history.ts), not by retention. */
export const contribution = {
  name: 'chains',
  tables: ['chain_samples', 'chain_uptime'],
  doctor: [chainsDoctor],
} as const satisfies Contribution
