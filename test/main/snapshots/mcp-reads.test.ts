import { describe, expect, it } from 'vitest'
import { runTool } from '../../../src/main/cli/mcp'
import { readTools } from '../../../src/main/cli/mcp-tools'
import type { McpTool } from '../../../src/main/cli/mcp-tools'
import type { Database } from '../../../src/main/db'
import { commitBetweenReads } from '../../support/between-reads'
import { useTempDir } from '../../support/temp'
import { listenerDatabase, t0 } from './support'

/** One MCP tool call over `db` as `watchdesk mcp` makes it (its answer, or why it failed). */
function call(
  db: Database,
  dataDir: string,
  name: keyof typeof readTools,
  args: Record<string, unknown>,
  now: number,
) {
  const outcome = runTool({ dataDir, db, close: () => {} }, name, readTools[name] as McpTool, args, now)
  if (!outcome.ok) throw new Error(outcome.message)
  return outcome.answer as Record<string, unknown>
}

describe('the MCP read tools answer from one snapshot', () => {
  const dir = useTempDir()

  it("get_event lists as many arrivals as the event's deliveries when a redelivery commits between its reads", () => {
    const dataDir = dir()
    const console = listenerDatabase(dataDir)
    console.deliver('evt_mcp', t0)
    const db = commitBetweenReads(
      console.reader(),
      (sql) => sql.includes('FROM event_arrivals'),
      () => console.deliver('evt_mcp', t0 + 60_000),
    )

    const answer = call(db, dataDir, 'get_event', { id: 'evt_mcp' }, t0 + 120_000)
    const event = answer.event as { deliveries: number; arrivals: unknown[] }
    expect([event.deliveries, event.arrivals.length]).toEqual([1, 1])
    const again = call(db, dataDir, 'get_event', { id: 'evt_mcp' }, t0 + 120_000).event as typeof event
    expect([again.deliveries, again.arrivals.length]).toEqual([2, 2])
  })

  it('listener_status counts no event newer than the last one it names when one commits between its reads', () => {
    const dataDir = dir()
    const console = listenerDatabase(dataDir)
    console.deliver('evt_old', t0 - 3 * 3_600_000)
    // The new delivery lands after the read of the last event, before the counts.
    const db = commitBetweenReads(
      console.reader(),
      (sql) => sql.includes('count(*) AS n FROM events WHERE received_at >= ?'),
      () => console.deliver('evt_new', t0),
    )

    const answer = call(db, dataDir, 'listener_status', {}, t0 + 1_000)
    const last = answer.lastEvent as { id: string } | null
    // One snapshot: the old event is the last one and none came in the last minute; never an event
    // counted in the last minute beside an older one named last.
    expect([last?.id, answer.eventsLastMinute]).toEqual(['evt_old', 0])
  })
})
