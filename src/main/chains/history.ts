import type { Database } from 'better-sqlite3'
import type { ChainHistory, HistoryPoint } from '../../shared/contract/chains'
import type { Uptime } from '../../shared/contract/alerts'
import { statusRank } from '../../shared/chains/health'
import type { ChainStatusKind } from '../../shared/chains/health'
import type { Sample } from './monitor'
import { percentile } from './percentile'

/** Samples of every poll, kept raw for two hours, folded into five-minute buckets for two days,
 * then into half-hour buckets kept for 31 days: twelve chains polled every 5 s make about 40k
 * rows for a month (2-3 MB). */

export const rawRetentionMs = 2 * 60 * 60_000
export const bucketMs = 5 * 60_000
export const fineBucketRetentionMs = 2 * 24 * 60 * 60_000
export const coarseBucketMs = 30 * 60_000
export const bucketRetentionMs = 31 * 24 * 60 * 60_000

interface Row {
  service_id: number
  t: number
  bucket_ms: number
  n: number
  errors: number
  status: string
  head: number | null
  age_ms: number | null
  lag_blocks: number | null
  lag_ms: number | null
  latency_ms: number | null
  error_code: number | null
  error: string | null
}

export const hourMs = 60 * 60_000
const uptimeRetentionMs = 31 * 24 * hourMs
/** Polls that count as down for uptime: the confirmed bad statuses (a "failing" poll is not yet). */
const downStatuses = new Set(['down', 'stalled', 'wrong_network'])

export interface ChainHistoryStore {
  /** Uptime from the hourly aggregate (polls, polls up), written with every sample. */
  uptime(serviceId: number, now?: number): Uptime
  /** Queues the samples of a poll round; they are written in one transaction per flush interval. */
  record(samples: Sample[]): void
  /** Writes what is queued now (on stop, before a query). Never throws: a failed write is logged
   * through `storage` and the samples stay queued (bounded) for the next attempt. */
  flush(): void
  /** Folds raw samples older than the raw retention into buckets, drops buckets past theirs. */
  compact(now?: number): { folded: number; dropped: number }
  history(serviceId: number, minutes: number, now?: number): ChainHistory
}

export interface ChainHistoryOptions {
  /** Told of every write's outcome (the console's storage status). */
  storage?: { failed(where: string, error: unknown): void; committed(): void }
  /** Samples are written at most this often: one fsync per interval, not one per poll round, off
   * the thread that serves the UI as much as SQLite allows. 0 writes each round at once. */
  flushEveryMs?: number
  now?: () => number
}

/** Queued samples kept while the database cannot take them (12 chains × 5 s ≈ 40 minutes). */
const maxQueuedSamples = 6_000

export function createChainHistory(db: Database, options: ChainHistoryOptions = {}): ChainHistoryStore {
  const now = options.now ?? Date.now
  const flushEveryMs = options.flushEveryMs ?? 0
  const insert = db.prepare(
    `INSERT OR REPLACE INTO chain_samples (service_id, t, bucket_ms, n, errors, status, head, age_ms, lag_blocks, lag_ms, latency_ms, error_code, error)
     VALUES (@service_id, @t, @bucket_ms, @n, @errors, @status, @head, @age_ms, @lag_blocks, @lag_ms, @latency_ms, @error_code, @error)`,
  )
  const countUptime = db.prepare(
    `INSERT INTO chain_uptime (service_id, hour, polls, up) VALUES (?, ?, 1, ?)
     ON CONFLICT (service_id, hour) DO UPDATE SET polls = polls + 1, up = up + excluded.up`,
  )
  const selectUptime = db.prepare(
    `SELECT hour, polls, up FROM chain_uptime WHERE service_id = ? AND hour >= ? ORDER BY hour`,
  )
  const dropUptime = db.prepare(`DELETE FROM chain_uptime WHERE hour < ?`)
  const selectFirstSample = db.prepare(
    `SELECT min(t) AS t FROM chain_samples WHERE service_id = ? AND t >= ?`,
  )
  /** The first poll on record since `from`: its sample's time when the sample is still kept (to the
   * millisecond), else the start of the first hour with polls. */
  const firstPoll = (serviceId: number, rows: { hour: number; polls: number }[], from: number) => {
    const firstHour = rows.find((r) => r.polls > 0)?.hour ?? null
    if (firstHour === null) return null
    const sample = (selectFirstSample.get(serviceId, from) as { t: number | null }).t
    return sample !== null && sample >= firstHour && sample < firstHour + hourMs ? sample : firstHour
  }
  const recordAll = db.transaction((rows: Row[]) => {
    for (const row of rows) {
      insert.run(row)
      countUptime.run(
        row.service_id,
        Math.floor(row.t / hourMs) * hourMs,
        downStatuses.has(row.status) ? 0 : 1,
      )
    }
  })
  const selectOld = db.prepare(
    `SELECT * FROM chain_samples WHERE bucket_ms = ? AND t < ? ORDER BY service_id, t`,
  )
  const deleteOld = db.prepare(`DELETE FROM chain_samples WHERE bucket_ms = ? AND t < ?`)
  const selectRange = db.prepare(`SELECT * FROM chain_samples WHERE service_id = ? AND t >= ? ORDER BY t`)
  const foldOlder = (from: number, to: number, cutoff: number) => {
    const rows = selectOld.all(from, cutoff) as Row[]
    for (const bucket of fold(rows, to)) insert.run(bucket)
    deleteOld.run(from, cutoff)
    return rows.length
  }
  let queued: Row[] = []
  let lastFlush = now()
  const flush = (): boolean => {
    lastFlush = now()
    if (queued.length === 0) return true
    try {
      recordAll.immediate(queued)
      queued = []
      options.storage?.committed()
      return true
    } catch (error) {
      if (!options.storage) throw error
      options.storage.failed('chain history', error)
      if (queued.length > maxQueuedSamples) queued = queued.slice(-maxQueuedSamples)
      return false
    }
  }

  return {
    record(samples) {
      if (samples.length === 0) return
      for (const s of samples) queued.push(rowOf(s))
      if (now() - lastFlush >= flushEveryMs) flush()
    },
    uptime(serviceId, at = now()) {
      flush()
      const thisHour = Math.floor(at / hourMs) * hourMs
      const rows = selectUptime.all(serviceId, thisHour - 30 * 24 * hourMs) as {
        hour: number
        polls: number
        up: number
      }[]
      const { ratio, hours } = uptimeOf(rows, thisHour)
      return {
        serviceId,
        ratio24h: ratio(24),
        ratio7d: ratio(7 * 24),
        ratio30d: ratio(30 * 24),
        hours,
        dataSince: firstPoll(serviceId, rows, thisHour - 30 * 24 * hourMs),
        at,
      }
    },
    flush: () => void flush(),
    compact(at = now()) {
      if (!flush()) return { folded: 0, dropped: 0 }
      try {
        return db
          .transaction(() => {
            const folded = foldOlder(0, bucketMs, at - rawRetentionMs)
            foldOlder(bucketMs, coarseBucketMs, at - fineBucketRetentionMs)
            const dropped = deleteOld.run(coarseBucketMs, at - bucketRetentionMs).changes
            dropUptime.run(at - uptimeRetentionMs)
            return { folded, dropped }
          })
          .immediate()
      } catch (error) {
        if (!options.storage) throw error
        options.storage.failed('chain history compaction', error)
        return { folded: 0, dropped: 0 }
      }
    },
    history(serviceId, minutes, at = now()) {
      flush()
      const rows = selectRange.all(serviceId, at - minutes * 60_000) as Row[]
      const recent = rows.filter(
        (r) => r.bucket_ms === 0 && r.t >= at - 15 * 60_000 && r.errors === 0 && r.latency_ms !== null,
      )
      const latencies = recent.map((r) => r.latency_ms!).sort((a, b) => a - b)
      return {
        serviceId,
        points: thin(rows.map(toPoint), 240),
        latencyP50Ms: percentile(latencies, 0.5),
        latencyP95Ms: percentile(latencies, 0.95),
        errorCount: rows.reduce((sum, r) => sum + r.errors, 0),
      }
    },
  }
}

/** A sample as its raw row (bucket 0). */
function rowOf(s: Parameters<ChainHistoryStore['record']>[0][number]): Row {
  return {
    service_id: s.serviceId,
    t: s.t,
    bucket_ms: 0,
    n: 1,
    errors: s.error ? 1 : 0,
    status: s.status,
    head: s.head,
    age_ms: s.ageMs,
    lag_blocks: s.lagBlocks,
    lag_ms: s.lagMs,
    latency_ms: s.latencyMs,
    error_code: s.error?.code ?? null,
    error: s.error?.message ?? null,
  }
}

/** The up ratio over the last `hours` hours, and the last 24 hours one by one. */
function uptimeOf(rows: { hour: number; polls: number; up: number }[], thisHour: number) {
  const ratio = (hours: number) => {
    let polls = 0
    let up = 0
    for (const r of rows)
      if (r.hour > thisHour - hours * hourMs) {
        polls += r.polls
        up += r.up
      }
    return polls === 0 ? null : up / polls
  }
  const byHour = new Map(rows.map((r) => [r.hour, r]))
  const hours = Array.from({ length: 24 }, (_, i) => {
    const t = thisHour - (23 - i) * hourMs
    const r = byHour.get(t)
    return { t, polls: r?.polls ?? 0, up: r?.up ?? 0 }
  })
  return { ratio, hours }
}

function fold(rows: Row[], size: number): Row[] {
  const groups = new Map<string, Row[]>()
  for (const row of rows) {
    const start = Math.floor(row.t / size) * size
    const key = `${row.service_id}:${start}`
    const group = groups.get(key) ?? []
    group.push({ ...row, t: start })
    groups.set(key, group)
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!
    const max = (pick: (r: Row) => number | null) => maxOf(group.map(pick))
    const timed = group.filter((r) => r.latency_ms !== null)
    const timedCount = timed.reduce((sum, r) => sum + r.n, 0)
    const worst = group.reduce((w, r) =>
      statusRank(r.status as ChainStatusKind) < statusRank(w.status as ChainStatusKind) ? r : w,
    )
    const lastError = [...group].reverse().find((r) => r.error !== null)
    return {
      service_id: first.service_id,
      t: first.t,
      bucket_ms: size,
      n: group.reduce((s, r) => s + r.n, 0),
      errors: group.reduce((s, r) => s + r.errors, 0),
      status: worst.status,
      head: max((r) => r.head),
      age_ms: max((r) => r.age_ms),
      lag_blocks: max((r) => r.lag_blocks),
      lag_ms: max((r) => r.lag_ms),
      latency_ms: timedCount
        ? Math.round(timed.reduce((sum, r) => sum + r.latency_ms! * r.n, 0) / timedCount)
        : null,
      error_code: lastError?.error_code ?? null,
      error: lastError?.error ?? null,
    }
  })
}

function toPoint(r: Row): HistoryPoint {
  return {
    t: r.t,
    lagSeconds: r.lag_ms === null ? null : r.lag_ms / 1000,
    lagBlocks: r.lag_blocks,
    latencyMs: r.latency_ms,
    ok: r.errors === 0,
  }
}

/** At most `max` points for a chart: each kept point carries the worst lag and the mean latency of those it stands for. */
export function thin(points: HistoryPoint[], max: number): HistoryPoint[] {
  if (points.length <= max) return points
  const size = Math.ceil(points.length / max)
  const out: HistoryPoint[] = []
  for (let i = 0; i < points.length; i += size) {
    const group = points.slice(i, i + size)
    const latencies = group.map((p) => p.latencyMs).filter((v): v is number => v !== null)
    out.push({
      t: group[0]!.t,
      lagSeconds: maxOf(group.map((p) => p.lagSeconds)),
      lagBlocks: maxOf(group.map((p) => p.lagBlocks)),
      latencyMs: latencies.length ? latencies.reduce((a, b) => a + b, 0) / latencies.length : null,
      ok: group.every((p) => p.ok),
    })
  }
  return out
}

function maxOf(values: (number | null)[]): number | null {
  let max: number | null = null
  for (const v of values) if (v !== null && (max === null || v > max)) max = v
  return max
}

export { percentile }
