import type { Contribution } from '../contribution'
import { webhooksDoctor } from './doctor'

/** The webhooks capability's share of the shared places (src/main/contribution.ts). */
export const contribution = {
  name: 'webhooks',
  tables: ['events', 'webhook_rejections', 'listener_runs'],
  retention: {
    aging: [
      // Others keep an event (and remove their rows with it) through the alias `e`.
      {
        kind: 'events',
        table: 'events',
        key: 'seq',
        alias: 'e',
        olderThan: 'e.received_at < @cutoff',
        orderBy: 'e.received_at',
      },
      {
        kind: 'rejections',
        table: 'webhook_rejections',
        key: 'seq',
        alias: 'r',
        olderThan: 'r.at < @cutoff',
        orderBy: 'r.seq',
      },
    ],
  },
  doctor: [webhooksDoctor],
} as const satisfies Contribution
