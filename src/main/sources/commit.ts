import type { Database } from 'better-sqlite3'
import type { SyncEvent, SyncPage } from '../../shared/contract/sync'
import { groupOf } from '../../shared/events'
import type { CommittedEvent } from '../committed'
import type { AppContext } from '../context'
import type { CommitHook } from '../db'
import { parseTime } from '../webhooks'
import type { Committer, EventParams } from '../webhooks'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'

/** Run after each synced event's upsert, in its transaction: the source's cursor (so the cursor
 * never runs ahead of what is stored, nor behind by more than what a redelivery deduplicates).
 * The source of a first delivery is written by the upsert itself (`upsertSourcedEventSql`, chosen
 * for an event that carries `source`): a second statement per event cost a tenth of the
 * catch-up's commit time. */
export const syncedEventHooks = [
  // Once per page (its last event): a cursor write per event would halve the catch-up speed.
  {
    name: 'sources.save-cursor',
    sql: `INSERT INTO source_cursors (name, cursor, at) SELECT @source, @cursor, @at WHERE @last = 1
   ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, at = excluded.at`,
    params: ['source', 'cursor', 'at', 'last'],
    onlyWhen: 'last',
  },
] as const satisfies readonly CommitHook[]
const saveCursorSql = `INSERT INTO source_cursors (name, cursor, at) VALUES (?, ?, ?)
  ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, at = excluded.at`

type SyncedParams = EventParams & { source: string; cursor: string; last: 0 | 1 }

function paramsOf(source: string, e: SyncEvent, last: boolean): SyncedParams {
  return {
    id: e.id,
    type: e.type,
    grp: groupOf(e.type),
    created_at: e.createdAt,
    created_ms: parseTime(e.createdAt),
    at: e.receivedAt,
    endpoint: e.endpoint ?? source,
    data_id: e.dataId,
    body: Buffer.from(e.body, 'base64'),
    data: e.data,
    // A relay older than this console sends no conflict fields.
    conflicts: e.conflicts ?? 0,
    conflict_body: e.conflictBody ? Buffer.from(e.conflictBody, 'base64') : null,
    source,
    cursor: e.cursor,
    last: last ? 1 : 0,
  }
}

export function cursorOf(db: Database, storage: AppContext['storage'], name: string): string {
  try {
    const row = db.prepare('SELECT cursor FROM source_cursors WHERE name = ?').get(name) as
      { cursor: string } | undefined
    return row?.cursor ?? '0'
  } catch (error) {
    storage.failed('source cursor read', error)
    return '0'
  }
}

/** Moves a source's cursor (a re-anchor); the failure is the storage's. */
export function saveCursor(
  ctx: Pick<AppContext, 'db' | 'storage'>,
  name: string,
  cursor: string,
): Result<void> {
  try {
    ctx.db.prepare(saveCursorSql).run(name, cursor, Date.now())
    return ok(undefined)
  } catch (error) {
    ctx.storage.failed('source cursor write', error)
    return err('unavailable', `The cursor of ${name} cannot be stored (${(error as Error).message}).`)
  }
}

export type PageStoreDeps = Pick<AppContext, 'db' | 'storage' | 'committed' | 'log'> & {
  committer(): Committer
}

/** Why a page was not stored: the local database did not commit it (it is fetched again). */
export type StoreOutcome = { ok: true } | { ok: false; message: string }

/** Commits one page of a source as one transaction through the commit worker, then publishes what
 * it stored on the committed-events channel (alerts, forward, the screen's batched push). */
export async function storePage(deps: PageStoreDeps, name: string, page: SyncPage): Promise<StoreOutcome> {
  if (page.events.length === 0) return { ok: true }
  const params = page.events.map((e, i) => paramsOf(name, e, i === page.events.length - 1))
  const result = await deps.committer().commit(params, [])
  if (!result.ok) {
    deps.storage.failed('source sync', result.failure)
    return { ok: false, message: result.failure.message }
  }
  deps.storage.committed()
  const committed: CommittedEvent[] = []
  result.items.forEach((item, i) => {
    if (item.ok)
      committed.push({
        summary: { ...item.summary, source: item.summary.source ?? (item.duplicate ? null : name) },
        duplicate: item.duplicate,
      })
    else
      deps.log.warn('a synced event cannot be stored; skipped', {
        source: name,
        id: params[i]!.id,
        reason: item.reason,
      })
  })
  // The last event could not be stored (it never can): its savepoint took the cursor write with
  // it, so move the cursor here, or the page would be fetched again for ever.
  if (!result.items.at(-1)?.ok) {
    try {
      deps.db.prepare(saveCursorSql).run(name, page.next, Date.now())
    } catch (error) {
      deps.storage.failed('source cursor write', error)
    }
  }
  deps.committed.publish({ origin: { kind: 'source', source: name }, events: committed })
  return { ok: true }
}

/** What the operator reads when a page cannot be stored. */
export const storageProblem = (name: string, message: string) =>
  `Events from ${name} cannot be stored (${message}). They are fetched again once the database commits.`
