import type { Contribution } from '../contribution'

/** A forward still under way: its outbox row is pending or failing. */
const underWay = `o.state IN ('pending', 'failing')`

/** The forward capability's share of the shared places (src/main/contribution.ts). */
export const contribution = {
  name: 'forward',
  tables: ['forward_outbox', 'forward_attempts', 'forward_routes'],
  reads: [{ table: 'events', why: 'the stored body and headers a forward sends' }],
  retention: {
    // Attempts of a forward still under way stay: they are its history on screen.
    aging: [
      {
        kind: 'attempts',
        table: 'forward_attempts',
        key: 'id',
        alias: 'a',
        olderThan: 'a.at < @cutoff',
        orderBy: 'a.id',
      },
    ],
    keep: [
      {
        table: 'events',
        name: 'forward.queued',
        keepsWhile: `EXISTS (SELECT 1 FROM forward_outbox o WHERE o.event_seq = e.seq AND ${underWay})`,
      },
      {
        table: 'forward_attempts',
        name: 'forward.under-way',
        keepsWhile: `EXISTS (SELECT 1 FROM forward_outbox o WHERE o.id = a.outbox_id AND ${underWay})`,
      },
    ],
    // An event goes with its finished forward rows and their attempts.
    removedWith: [
      {
        table: 'events',
        name: 'forward.attempts',
        sql: 'DELETE FROM forward_attempts WHERE event_seq IN (SELECT id FROM temp.watchdesk_retention)',
      },
      {
        table: 'events',
        name: 'forward.outbox',
        sql: 'DELETE FROM forward_outbox WHERE event_seq IN (SELECT id FROM temp.watchdesk_retention)',
      },
    ],
  },
} as const satisfies Contribution
