import type { Contribution } from '../contribution'
import { relayDoctor } from './doctor'

/** The relay capability's share of the shared places (src/main/contribution.ts). A relay's store
 * holds the webhooks capability's tables too (the relay builds on it); `relay_meta` is its
 * PostgreSQL store's own. */
export const contribution = {
  name: 'relay',
  tables: ['relay_tokens', 'relay_meta'],
  doctor: [relayDoctor],
} as const satisfies Contribution
