import type { Contribution } from '../contribution'

/** The alerts capability's share of the shared places (src/main/contribution.ts). */
export const contribution = {
  name: 'alerts',
  tables: ['alert_incidents', 'alert_log', 'alert_mutes', 'alert_outbox'],
  retention: {
    aging: [
      {
        kind: 'alerts',
        table: 'alert_incidents',
        key: 'id',
        alias: 'i',
        olderThan: 'i.closed_at IS NOT NULL AND i.closed_at < @cutoff',
      },
      {
        kind: 'alerts',
        table: 'alert_log',
        key: 'id',
        alias: 'l',
        olderThan: 'l.t < @cutoff',
        orderBy: 'l.t',
      },
    ],
    // The event an open incident is about stays (an event incident's subject is 'event:<id>').
    keep: [
      {
        table: 'events',
        name: 'alerts.open-incident',
        keepsWhile: `EXISTS (SELECT 1 FROM alert_incidents i WHERE i.closed_at IS NULL AND i.subject = 'event:' || e.id)`,
      },
    ],
  },
} as const satisfies Contribution
