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
