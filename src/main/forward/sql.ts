import type { CommitHook } from '../db'

/** Run by the commit transaction after each event's upsert (a commit hook), in the event's own
 * savepoint: a first delivery gets one outbox row per enabled target whose patterns match its
 * type. card.authorization.request rows are due a minute later: the listener relays them at once
 * itself, and the loop only takes one whose relay never ran (the process died in between). */
export const enqueueOnCommit = {
  name: 'forward.enqueue',
  sql: `
  INSERT INTO forward_outbox (event_seq, target, state, created_at, due_at)
  SELECT DISTINCT @seq, target, 'pending', @at,
         @at + CASE WHEN @type = 'card.authorization.request' THEN 60000 ELSE 0 END
  FROM forward_routes
  WHERE @inserted = 1 AND @type GLOB pattern`,
  params: ['seq', 'at', 'type', 'inserted'],
  onlyWhen: 'inserted',
  whileAny: 'SELECT 1 FROM forward_routes LIMIT 1',
} as const satisfies CommitHook

/** After a relay's resync moved an event to a new `seq` (a conflicting redelivery,
 * `relay.resync-on-conflict`, which runs first), its outbox rows and attempts follow it: a data dir
 * a console used before has them. */
export const followResyncHooks: readonly CommitHook[] = (['forward_outbox', 'forward_attempts'] as const).map(
  (table) => ({
    name: `forward.follow-resync.${table}`,
    sql: `UPDATE ${table} SET event_seq = (SELECT seq FROM events WHERE id = @id) WHERE event_seq = @seq AND @conflicted = 1`,
    params: ['id', 'seq', 'conflicted'] as const,
    onlyWhen: 'conflicted' as const,
  }),
)
