import type { Contribution } from '../contribution'

/** The endpoint-disablement watch's share of the shared places (src/main/contribution.ts). */
export const contribution = {
  name: 'disablement',
  tables: ['reachability_outages', 'reachability_settled'],
  reads: [{ table: 'listener_runs', why: 'the gaps between listener runs: outages known after the fact' }],
} as const satisfies Contribution
