import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createChainHistory } from '../../../src/main/chains'
import type { Sample } from '../../../src/main/chains/monitor'
import { openDatabase } from '../../../src/main/db'
import { describeUptime, uptimeFigures } from '../../../src/shared/alerts/uptime'
import { Uptime } from '../../../src/shared/contract/alerts'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

const start = Date.parse('2026-11-25T10:00:07Z')
const minute = 60_000

const sample = (t: number, status: Sample['status'] = 'healthy'): Sample => ({
  serviceId: 137,
  t,
  status,
  head: 5000,
  ageMs: 2000,
  lagBlocks: null,
  lagMs: null,
  latencyMs: 80,
  error: null,
})

/** Uptime from the hourly aggregate and the samples in SQLite on disk, as the chain drawer reads it. */
describe('uptime says the period its data covers', () => {
  const tempDir = useTempDir()
  const history = () => createChainHistory(unwrap(openDatabase(join(tempDir(), 'watchdesk.db'))))

  it('two minutes after the first poll: one figure over the last 2 min of data, no 24 h, 7 d or 30 d', () => {
    const h = history()
    // A poll every 5 s for two minutes, one of them down: 24 polls, 23 up.
    h.record(Array.from({ length: 24 }, (_, i) => sample(start + i * 5_000, i === 7 ? 'down' : 'healthy')))
    const uptime = Uptime.parse(h.uptime(137, start + 2 * minute))
    expect(uptime).toMatchObject({ dataSince: start, ratio24h: 23 / 24 })
    expect(uptimeFigures(uptime)).toEqual([{ label: 'last 2 min of data', value: '95.83 %', full: false }])
    expect(describeUptime(uptime)).toBe('95.83 % over the last 2 min of data')
  })

  it('after three days: the 24 h figure, then the rest over the last 3 d of data', () => {
    const h = history()
    const every = 10 * minute
    const polls = (3 * 24 * 60) / 10
    h.record(Array.from({ length: polls }, (_, i) => sample(start + i * every)))
    const at = start + 3 * 24 * 60 * minute
    expect(describeUptime(Uptime.parse(h.uptime(137, at)))).toBe(
      '24 h 100.00 % · 100.00 % over the last 3 d of data',
    )
  })

  it('gives no figure for a window without polls, and none at all before the first poll', () => {
    const h = history()
    expect(describeUptime(Uptime.parse(h.uptime(137, start)))).toBe('no polls recorded yet')
    // Polled for an hour two days ago, off since.
    h.record(Array.from({ length: 12 }, (_, i) => sample(start + i * 5 * minute)))
    const uptime = Uptime.parse(h.uptime(137, start + 2 * 24 * 60 * minute))
    expect(uptime.ratio24h).toBeNull()
    expect(describeUptime(uptime)).toBe('24 h no data · 100.00 % over the last 2 d of data')
  })
})
