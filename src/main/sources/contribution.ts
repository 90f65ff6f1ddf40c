import type { Contribution } from '../contribution'
import { sourcesDoctor } from './doctor'

/** The sources capability's share of the shared places (src/main/contribution.ts). */
export const contribution = {
  name: 'sources',
  tables: ['source_cursors'],
  doctor: [sourcesDoctor],
} as const satisfies Contribution
