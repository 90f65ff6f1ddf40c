import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { enqueueOnCommit, openForwardStore } from '../../../src/main/forward'
import { forwardStoreOn } from '../../../src/main/forward/store'
import { parseEnvelope } from '../../../src/main/webhooks'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import { eventParams } from '../../../src/main/webhooks/store'
import { unwrap } from '../../../src/shared/result'
import { commitBetweenReads } from '../../support/between-reads'
import { useTempDir } from '../../support/temp'
import { envelope } from '../webhooks/helpers'

const t0 = Date.parse('2026-11-20T10:00:00Z')

describe("an event's forwarding detail", () => {
  const dir = useTempDir()

  it('shows the row state and its attempts from one snapshot when an attempt commits between the reads', async () => {
    const file = join(dir(), 'watchdesk.db')
    const db = unwrap(openDatabase(file))
    const writer = openForwardStore(file)
    writer.syncRoutes([{ name: 'app', events: ['*'], enabled: true }])
    const body = Buffer.from(envelope('evt_snap'))
    const committed = await inThreadCommitter(db, [enqueueOnCommit]).commit(
      [eventParams({ envelope: unwrap(parseEnvelope(body)), body, endpoint: 'wh_alpha', at: t0 })],
      [],
    )
    expect(committed.ok).toBe(true)
    const seq = writer.seqOf('evt_snap')!
    const outboxId = (
      db.prepare('SELECT id FROM forward_outbox WHERE event_seq = ?').get(seq) as { id: number }
    ).id
    const reader = forwardStoreOn(
      commitBetweenReads(
        unwrap(openDatabase(file)),
        (sql) => sql.includes('FROM forward_attempts') && sql.includes('LIMIT 100'),
        () =>
          writer.record([
            {
              outboxId,
              seq,
              target: 'app',
              attempt: 1,
              at: t0,
              status: 422,
              latencyMs: 3,
              error: 'the target answered 422',
              response: 'no',
              edited: false,
              state: 'failing',
              dueAt: t0 + 60_000,
            },
          ]),
      ),
    )

    const first = reader.eventForwarding(seq)
    // Before the commit: pending with no attempts, not "pending" beside an attempt.
    expect(first.forwards.map((f) => [f.state, f.attempts])).toEqual([['pending', 0]])
    expect(first.attempts).toEqual([])
    const second = reader.eventForwarding(seq)
    expect(second.forwards.map((f) => [f.state, f.attempts, f.lastStatus])).toEqual([['failing', 1, 422]])
    expect(second.attempts.map((a) => a.status)).toEqual([422])
    writer.close()
    db.close()
  })
})
