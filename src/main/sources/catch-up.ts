import type { SyncPage } from '../../shared/contract/sync'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { StoreOutcome } from './commit'

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

export interface CatchUpSteps {
  /** A page of at most `pageSize` events after `after`; the first asks for the count remaining. */
  fetch(after: string, withRemaining: boolean): Promise<Result<SyncPage>>
  store(page: SyncPage): Promise<StoreOutcome>
  /** The first page arrived: `remaining` events are to be fetched in all (with this page). */
  started(remaining: number): void
  /** A page was stored. */
  stored(count: number): void
}

/** Reads everything after `cursor` page by page, each page one transaction; the next page is
 * fetched while this one commits. Resolves with the cursor after the last stored event (where the
 * live stream starts), or why it stopped: the relay (its answer) or the local database. */
export async function catchUp(
  cursor: string,
  pageSize: number,
  steps: CatchUpSteps,
): Promise<Result<string>> {
  let page: Result<SyncPage> = await steps.fetch(cursor, true)
  if (!page.ok) return page
  steps.started((page.value.remaining ?? 0) + page.value.events.length)
  for (;;) {
    const nextFetch: Promise<Result<SyncPage>> | null =
      page.value.events.length === pageSize ? steps.fetch(page.value.next, false) : null
    const stored = await steps.store(page.value)
    if (!stored.ok) {
      // The fetch under way is not wanted any more; its answer (or failure) is dropped.
      void nextFetch?.catch(() => undefined)
      return err('unavailable', stored.message)
    }
    steps.stored(page.value.events.length)
    cursor = page.value.next
    if (!nextFetch) return ok(cursor)
    // One page's reply and the next page's parameters would otherwise run in one turn of the event
    // loop (promises chain in microtasks): let timers, I/O and the UI's calls in between.
    await nextTurn()
    page = await nextFetch
    if (!page.ok) return page
  }
}
