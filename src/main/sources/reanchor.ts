import type { SyncCursorRefusal } from '../../shared/contract/sync'
import { maxAnchorIds } from '../../shared/contract/sync'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import { fetchAnchor } from './client'
import { saveCursor } from './commit'

/** Why the relay refused the cursor, in the words the source status shows. */
const causes: Record<SyncCursorRefusal['problem'], string> = {
  'other-store': 'another store answers at this URL now',
  'past-end': 'the store ends before this console’s cursor',
  'replaced-event': 'the store holds other events where this console’s were',
}

/** After a 409 for its cursor (the relay's store was replaced, recreated or restored from an older
 * backup): asks the relay where the newest events this console holds from it are, and stores the
 * cursor after them, so the next catch-up reads exactly what this console lacks (an event it holds
 * already is deduplicated by id). Resolves with the notice the source status shows once. */
export async function reanchor(
  ctx: Pick<AppContext, 'db' | 'storage'>,
  relay: { name: string; url: string; token: string },
  refusal: SyncCursorRefusal,
  signal: AbortSignal,
): Promise<Result<string>> {
  const ids = ctx.db
    .prepare('SELECT id FROM events WHERE source = ? ORDER BY seq DESC LIMIT ?')
    .pluck()
    .all(relay.name, maxAnchorIds) as string[]
  const anchor =
    ids.length === 0
      ? ok({ cursor: '0', after: null, store: refusal.store })
      : await fetchAnchor(relay.url, relay.token, ids, signal)
  if (!anchor.ok) return anchor
  const saved = saveCursor(ctx, relay.name, anchor.value.cursor)
  if (!saved.ok) return saved
  const from = anchor.value.after
    ? `re-synced from after event ${anchor.value.after}`
    : 're-synced from its start (none of this console’s recent events is in it; those it holds are not stored twice)'
  return ok(
    `relay store was replaced or restored: ${from} (store ${anchor.value.store}; ${causes[refusal.problem]}).`,
  )
}
