import type { Contribution } from '../contribution'

/** The replay sentinel's share of the shared places (src/main/contribution.ts): its record of each
 * arrival goes with its event. */
export const contribution = {
  name: 'replay',
  tables: ['event_arrivals', 'replay_suspects'],
  retention: {
    removedWith: [
      {
        table: 'events',
        name: 'replay.arrivals',
        sql: 'DELETE FROM event_arrivals WHERE event_seq IN (SELECT id FROM temp.watchdesk_retention)',
      },
      {
        table: 'events',
        name: 'replay.suspects',
        sql: 'DELETE FROM replay_suspects WHERE event_seq IN (SELECT id FROM temp.watchdesk_retention)',
      },
    ],
  },
} as const satisfies Contribution
