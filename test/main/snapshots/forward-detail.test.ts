import { describe, expect, it } from 'vitest'
import { eventForwardingAnswer, forwardStoreOn, openForwardStore } from '../../../src/main/forward'
import { commitBetweenReads } from '../../support/between-reads'
import { useTempDir } from '../../support/temp'
import { listenerDatabase, t0 } from './support'

describe("an event's forwarding answer", () => {
  const dir = useTempDir()

  it('shows the event with its forwards or "not found", never the event without forwards, when retention removes it between the reads', () => {
    const console = listenerDatabase(dir())
    const routes = openForwardStore(console.file)
    routes.syncRoutes([{ name: 'app', events: ['*'], enabled: true }])
    routes.close()
    console.deliver('evt_gone', t0)
    const seq = (
      console.writer.prepare("SELECT seq FROM events WHERE id = 'evt_gone'").get() as { seq: number }
    ).seq
    console.writer.prepare("UPDATE forward_outbox SET state = 'delivered', attempts = 1").run()
    // Retention's batch: the event goes with its finished forward rows, in one transaction.
    const prune = console.writer.transaction(() => {
      for (const table of ['forward_attempts', 'forward_outbox', 'event_arrivals'])
        console.writer.prepare(`DELETE FROM ${table} WHERE event_seq = ?`).run(seq)
      console.writer.prepare('DELETE FROM events WHERE seq = ?').run(seq)
    })
    const reader = forwardStoreOn(
      commitBetweenReads(
        console.reader(),
        (sql) => sql.includes('FROM forward_outbox WHERE event_seq'),
        prune,
      ),
    )

    const answer = eventForwardingAnswer(reader, 'evt_gone')
    // One snapshot: the event with its delivered forward (the prune landed after the snapshot
    // began), never the event found with no forwards at all.
    expect(answer.ok && answer.value.forwards.map((f) => f.state)).toEqual(['delivered'])
    const after = eventForwardingAnswer(reader, 'evt_gone')
    expect(after.ok ? 'found' : after.error.code).toBe('not_found')
  })
})
