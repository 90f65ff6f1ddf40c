import { describe, expect, it } from 'vitest'
import { openSqliteRelayStore } from '../../../src/main/relay'
import { resyncOnConflictHooks } from '../../../src/main/relay/sqlite-store'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import { unwrap } from '../../../src/shared/result'
import { commitBetweenReads } from '../../support/between-reads'
import { useTempDir } from '../../support/temp'
import { listenerDatabase, t0 } from './support'

/** The relay's store over `relay`'s file, its connection landing `commit` (another connection's
 * delivery) right before the first read that `before` picks. */
function storeCommittingBetweenReads(
  relay: ReturnType<typeof listenerDatabase>,
  before: (sql: string) => boolean,
  commit: () => void,
) {
  return unwrap(
    openSqliteRelayStore(relay.file, {
      committer: inThreadCommitter(relay.writer),
      readThrough: (db) => commitBetweenReads(db, before, commit),
    }),
  )
}

describe("the relay's SQLite store reads one snapshot", () => {
  const dir = useTempDir()

  it('counts no event of a page again among those after it when a conflict moves it between the reads', async () => {
    const relay = listenerDatabase(dir(), resyncOnConflictHooks)
    for (const id of ['evt_1', 'evt_2', 'evt_3']) relay.deliver(id, t0)
    // A redelivery of evt_1 with another body: the resync moves it to the end (seq 4).
    // The store's connection lets the redelivery commit before the count after the page.
    const store = storeCommittingBetweenReads(
      relay,
      (sql) => sql.includes('count(*) AS n FROM events WHERE seq > ?'),
      () => relay.deliver('evt_1', t0 + 1_000, { id: 'fund_evt_1', amount: 2 }),
    )
    try {
      const page = unwrap(await store.readAfter('0', 2, true))
      // Three events in all: the page's two and one after it, not evt_1 in both.
      expect([page.events.map((e) => e.id), page.remaining]).toEqual([['evt_1', 'evt_2'], 1])
    } finally {
      await store.close()
    }
  })

  it('never says a position holds an event and lies past the newest one when that event commits between the reads', async () => {
    const relay = listenerDatabase(dir(), resyncOnConflictHooks)
    relay.deliver('evt_1', t0)
    const store = storeCommittingBetweenReads(
      relay,
      (sql) => sql === 'SELECT id FROM events WHERE seq = ?',
      () => relay.deliver('evt_2', t0 + 1_000),
    )
    try {
      const facts = unwrap(await store.positionFacts('2'))
      expect(facts).toEqual({ idAt: null, pastEnd: true })
      expect(unwrap(await store.positionFacts('2'))).toEqual({ idAt: 'evt_2', pastEnd: false })
    } finally {
      await store.close()
    }
  })
})
