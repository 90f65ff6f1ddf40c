import { statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { bucketMs, createChainHistory, rawRetentionMs } from '../../../src/main/chains/history'
import type { Sample } from '../../../src/main/chains/monitor'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

const sample = (serviceId: number, t: number, over: Partial<Sample> = {}): Sample => ({
  serviceId,
  t,
  status: 'healthy',
  head: Math.floor(t / 1000),
  ageMs: 800,
  lagBlocks: 0,
  lagMs: 0,
  latencyMs: 20,
  error: null,
  ...over,
})

describe('chain history in SQLite', () => {
  const tempDir = useTempDir()

  it('returns the last hour of lag and latency, with p50/p95 latency over the last 15 minutes', () => {
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    const history = createChainHistory(db)
    const now = 10_000_000_000
    const samples: Sample[] = []
    for (let i = 0; i < 720; i++) {
      const t = now - i * 5000
      samples.push(
        sample(56, t, { latencyMs: (i % 100) + 1, lagMs: i < 10 ? 4000 : 0, lagBlocks: i < 10 ? 9 : 0 }),
      )
    }
    samples.push(
      sample(56, now - 1000, {
        status: 'down',
        error: { kind: 'timeout', code: null, message: 'No answer' },
        latencyMs: null,
      }),
    )
    samples.push(sample(1, now, { latencyMs: 9999 }))
    history.record(samples)
    const h = history.history(56, 60, now)
    // The hour's 721 polls of this chain, in at most 240 points.
    expect(h.points.length).toBe(181)
    expect(h.errorCount).toBe(1)
    expect(Math.max(...h.points.map((p) => p.lagBlocks ?? 0))).toBe(9)
    // The last 15 minutes are i = 0..180; the failed poll and the other chain are not mixed in.
    const expected = Array.from({ length: 181 }, (_, i) => (i % 100) + 1).sort((a, b) => a - b)
    expect(h.latencyP50Ms).toBe(expected[90])
    expect(h.latencyP95Ms).toBe(expected[171])
    db.close()
  })

  it('folds raw samples past two hours into five-minute buckets keeping the worst lag and status', () => {
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    const history = createChainHistory(db)
    const now = 20_000_000_000
    const old = Math.floor((now - rawRetentionMs - bucketMs) / bucketMs) * bucketMs
    history.record([
      sample(137, old + 1000, { lagMs: 1000, latencyMs: 10 }),
      sample(137, old + 6000, { lagMs: 9000, latencyMs: 30, status: 'lagging' }),
      sample(137, old + 11000, {
        status: 'down',
        error: { kind: 'http', code: 503, message: 'HTTP 503' },
        latencyMs: null,
      }),
      sample(137, now - 1000),
    ])
    expect(history.compact(now)).toEqual({ folded: 3, dropped: 0 })
    const rows = db.prepare('SELECT * FROM chain_samples WHERE service_id = 137 ORDER BY t').all() as Record<
      string,
      unknown
    >[]
    expect(rows).toHaveLength(2)
    expect(rows[0]).toMatchObject({
      t: old,
      bucket_ms: bucketMs,
      n: 3,
      errors: 1,
      status: 'down',
      lag_ms: 9000,
      latency_ms: 20,
      error_code: 503,
    })
    expect(rows[1]).toMatchObject({ bucket_ms: 0 })
    // Five-minute buckets become half-hour ones after two days; those go after 31 days.
    history.compact(now + 3 * 24 * 3600_000)
    const coarse = db.prepare('SELECT bucket_ms, n FROM chain_samples WHERE service_id = 137').all() as {
      bucket_ms: number
      n: number
    }[]
    expect(coarse.every((r) => r.bucket_ms === 30 * 60_000)).toBe(true)
    expect(coarse.reduce((sum, r) => sum + r.n, 0)).toBe(4)
    expect(history.compact(now + 32 * 24 * 3600_000).dropped).toBe(coarse.length)
    db.close()
  })

  it('keeps a month of twelve chains polled every 5 s within a few MB', () => {
    const file = join(tempDir(), 'watchdesk.db')
    const db = unwrap(openDatabase(file))
    const history = createChainHistory(db)
    const day = 24 * 3600_000
    const now = 40_000_000_000
    const ids = [8217, 61, 1313161554, 25, 10, 199, 250, 56, 137, 42161, 592, 1]
    // Two hours of raw samples every 5 s, older ones already folded: write them raw and compact in steps.
    for (let start = now - 31 * day; start < now; start += day) {
      const batch: Sample[] = []
      for (let t = start; t < start + day; t += bucketMs)
        for (const id of ids) batch.push(sample(id, t, { latencyMs: 25 }))
      history.record(batch)
      history.compact(start + day + rawRetentionMs)
    }
    const raw: Sample[] = []
    for (let t = now - rawRetentionMs; t < now; t += 5000) for (const id of ids) raw.push(sample(id, t))
    history.record(raw)
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.exec('VACUUM')
    db.close()
    const megabytes = statSync(file).size / 1024 / 1024
    expect(megabytes).toBeLessThan(3)
    expect(megabytes).toBeGreaterThan(0.5)
  })
})
