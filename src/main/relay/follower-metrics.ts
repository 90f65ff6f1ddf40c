import { Counter, Gauge } from 'prom-client'
import type { Registry } from 'prom-client'
import { SyncCursorProblem } from '../../shared/contract/sync'
import type { SyncStreamStats } from './sync-server'
import { scrapedTotals } from '../meters/registry'

/** The relay's followers on /metrics (issue 34.3): streams open and whether they follow the feed or
 * catch up, streams cut for being slow, bytes queued for them, change-feed reads, and cursors
 * refused (409, by why). Read from the sync server at scrape time; every series exists from the
 * start (at 0), so a dashboard query has data before the first follower. */
export function registerFollowerMetrics(registry: Registry, read: () => SyncStreamStats): void {
  const registers = [registry]
  new Gauge({
    name: 'watchdesk_relay_streams',
    help: 'Open /sync/stream followers, by state: live (following the change feed) or catching_up (reading the store)',
    labelNames: ['state'],
    registers,
    collect() {
      const s = read()
      this.set({ state: 'live' }, s.live)
      this.set({ state: 'catching_up' }, s.catchingUp)
    },
  })
  const total = scrapedTotals(registry, read)
  total(
    'watchdesk_relay_streams_cut_total',
    'Live streams cut back to catching up because their client did not keep up',
    (s) => s.cut,
  )
  total(
    'watchdesk_relay_feed_reads_total',
    'Reads of the store by the change feed (one per commit notice, however many follow)',
    (s) => s.feedReads,
  )
  new Gauge({
    name: 'watchdesk_relay_stream_buffered_bytes',
    help: 'Bytes written to follower streams and not yet sent, all streams together',
    registers,
    collect() {
      this.set(read().buffered)
    },
  })
  new Counter({
    name: 'watchdesk_relay_cursor_refusals_total',
    help: 'Sync cursors answered 409 (the store was replaced, recreated or restored), by problem',
    labelNames: ['problem'],
    registers,
    collect() {
      this.reset()
      const refused = read().cursorRefusals
      for (const problem of SyncCursorProblem.options) this.inc({ problem }, refused[problem])
    },
  })
}
