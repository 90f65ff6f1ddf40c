import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { silentLogger } from '../../../src/main/log'
import type { RelayStore } from '../../../src/main/relay'
import { openPostgresStore } from '../../../src/main/relay/pg-store'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { waitFor } from '../../support/wait'
import { params } from './helpers'

/** The commit notice left the commit's transaction (a NOTIFY there serialises every relay's
 * commits on one lock through the WAL flush): it now follows the commit, one at a time. What must
 * still hold is that the other relays' streams are woken by it. */
describe('commit notices between relays on one PostgreSQL database', () => {
  const postgres = usePostgres()
  const opened: RelayStore[] = []
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()))
  })

  it("wakes another relay's streams after a commit that stored new events, every one of them readable then", async () => {
    const url = await postgres().createDatabase('notify_wake')
    const [a, b] = await Promise.all(
      [0, 1].map(async () => unwrap(await openPostgresStore(url, { log: silentLogger }))),
    )
    opened.push(a!, b!)
    expect(b!.wakeups().mode).toBe('notify')
    const listener = new pg.Client(url)
    await listener.connect()
    const notices: string[] = []
    listener.on('notification', (n) => notices.push(n.payload ?? ''))
    await listener.query('LISTEN watchdesk_events')
    let woken = 0
    b!.onCommitted(() => woken++)
    try {
      // Twenty commits at once: the notices coalesce, but the last one follows the last commit.
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => a!.committer.commit([params(`evt_notify_${i}`)], [])),
      )
      expect(results.every((r) => r.ok)).toBe(true)
      await waitFor(() => woken > 0, "relay B's streams woken by relay A's commit")
      await waitFor(() => notices.length > 0, 'a notice on the channel')
      expect(notices.length).toBeLessThanOrEqual(20)
      const page = unwrap(await b!.readAfter('0', 100))
      expect(page.events.map((e) => e.id).sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `evt_notify_${i}`).sort(),
      )
    } finally {
      await listener.end()
    }
  })
})
