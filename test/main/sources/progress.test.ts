import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createCommittedEvents } from '../../../src/main/committed'
import type { CommittedBatch } from '../../../src/main/committed'
import { createStorageHealth, openDatabase } from '../../../src/main/db'
import { silentLogger } from '../../../src/main/log'
import { createRelayToken } from '../../../src/main/relay'
import { catchUp } from '../../../src/main/sources/catch-up'
import { fetchPage } from '../../../src/main/sources/client'
import { syncedEventHooks, storePage } from '../../../src/main/sources/commit'
import { tagOf } from '../../../src/main/relay/sync-query'
import { sourceTracker } from '../../../src/main/sources/status'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import type { SourceStatus } from '../../../src/shared/contract/sources'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { fill, useRelays } from '../relay/helpers'

/** The catch-up's progress, page by page, from a real relay (SQLite store, sync API over HTTP) into
 * a real console database: what the Sources view's bar and the Overview's tile show ("1,000 /
 * 2,500", "1,500 to go"). Each page's step is observed as it happens, so nothing depends on timing. */
describe('a catch-up from a relay', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-catchup-progress-')

  it('reports its progress after every page: synced up, remaining down to zero, then live', async () => {
    const dir = tempDir()
    const store = relays.sqliteStore(join(dir, 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    await fill(store, 'evt_progress', 2_500)

    const db = unwrap(openDatabase(join(dir, 'console.db')))
    const committer = inThreadCommitter(db, syncedEventHooks)
    const committed = createCommittedEvents()
    const batches: CommittedBatch[] = []
    committed.subscribe((batch) => batches.push(batch))
    const deps = {
      db,
      storage: createStorageHealth(db.name, silentLogger),
      committed,
      log: silentLogger,
      committer: () => committer,
    }
    const pushed: { urgent: boolean; status: SourceStatus }[] = []
    const tracker = sourceTracker('office', relay.syncUrl, true, (urgent) =>
      pushed.push({ urgent, status: tracker.status() }),
    )
    const afterEachPage: Pick<SourceStatus, 'state' | 'synced' | 'remaining'>[] = []
    try {
      const caught = await catchUp('0', 1_000, {
        fetch: (after, withRemaining) => fetchPage(relay.syncUrl, token, after, 1_000, withRemaining),
        store: (page) => storePage(deps, 'office', page),
        started: (remaining) => tracker.catchingUp(remaining),
        stored: (count) => {
          tracker.stored(count)
          const { state, synced, remaining } = tracker.status()
          afterEachPage.push({ state, synced, remaining })
        },
      })
      expect(caught.ok).toBe(true)
      tracker.live()

      expect(afterEachPage).toEqual([
        { state: 'catching-up', synced: 1_000, remaining: 1_500 },
        { state: 'catching-up', synced: 2_000, remaining: 500 },
        { state: 'catching-up', synced: 2_500, remaining: 0 },
      ])
      expect(tracker.status()).toMatchObject({ state: 'live', synced: 2_500, remaining: 0 })
      // The view hears at once of the start (with the whole count) and of the end; the pages in
      // between only as progress (not urgent, so it is pushed at most every 250 ms).
      expect(pushed.filter((p) => p.urgent).map((p) => [p.status.state, p.status.remaining])).toEqual([
        ['catching-up', 2_500],
        ['live', 0],
      ])
      expect(pushed.filter((p) => !p.urgent)).toHaveLength(3)
      // Every page committed as one transaction, each event stored with its source, and the cursor
      // at the relay's last event.
      expect(batches.map((b) => b.events.length)).toEqual([1_000, 1_000, 500])
      expect(db.prepare(`SELECT count(*) AS n FROM events WHERE source = 'office'`).get()).toEqual({
        n: 2_500,
      })
      // (the store's position of that event, with the store's identity: a checked cursor)
      expect(db.prepare(`SELECT cursor FROM source_cursors WHERE name = 'office'`).get()).toEqual({
        cursor: `${unwrap(await store.readAfter('0', 5_000)).next}_${store.identity}_${tagOf('evt_progress_002499')}`,
      })
    } finally {
      await committer.close()
      db.close()
    }
  })
})
