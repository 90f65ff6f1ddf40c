import { describe, expect, it } from 'vitest'
import { readSuspects } from '../../../src/main/replay'
import { createReplayStore } from '../../../src/main/replay/store'
import { commitBetweenReads } from '../../support/between-reads'
import { useTempDir } from '../../support/temp'
import { listenerDatabase, t0 } from './support'

describe('the suspected replays read for the status and MCP', () => {
  const dir = useTempDir()

  it('counts every suspect it lists when one is recorded between the count and the list', () => {
    const console = listenerDatabase(dir())
    console.deliver('evt_replayed', t0)
    const seq = (
      console.writer.prepare("SELECT seq FROM events WHERE id = 'evt_replayed'").get() as { seq: number }
    ).seq
    const record = () =>
      createReplayStore(console.writer).recordSuspect(seq, {
        id: 'evt_replayed',
        type: 'funding.completed',
        at: t0 + 600_000,
        remote: '203.0.113.9',
        reason: 'redelivered after a 200',
      })
    const db = commitBetweenReads(console.reader(), (sql) => sql.includes('ORDER BY at DESC LIMIT'), record)

    const first = readSuspects(db, t0, 50)
    expect([first.count, first.recent.length]).toEqual([0, 0])
    const second = readSuspects(db, t0, 50)
    expect([second.count, second.recent.map((s) => s.id)]).toEqual([1, ['evt_replayed']])
  })
})
