/**
 * npm run bench:retention — ingest latency while retention deletes old events (issue 21):
 * a database holding BENCH_OLD_EVENTS (default 1,000,000) events 100 days old; events committed
 * one by one at BENCH_RATE (default 500/s) through the commit worker, as the listener commits them,
 * for BENCH_SECONDS; first without retention (baseline), then while retention removes every old
 * event in its batches through the same worker. Prints p50/p99 of the commit round trip (the part
 * of a delivery's answer that retention can delay) for both, the ratio, and the deletion's pace.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase } from '../src/main/db'
import {
  defaultBatchRows,
  emptyRetentionState,
  sqliteRetentionTarget,
  startRetention,
} from '../src/main/db/retention'
import { RetentionConfig } from '../src/shared/config'
import { unwrap } from '../src/shared/result'
import { workerCommitter } from '../src/main/webhooks/committer'
import type { EventParams } from '../src/main/webhooks/sql'

const oldEvents = Number(process.env.BENCH_OLD_EVENTS ?? 1_000_000)
const rate = Number(process.env.BENCH_RATE ?? 500)
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const batchRows = Number(process.env.BENCH_BATCH ?? defaultBatchRows)
const windowMs = Number(process.env.BENCH_WINDOW_MS ?? 0)
const dayMs = 86_400_000

const params = (id: string, at: number): EventParams => ({
  id,
  type: 'payout.completed',
  grp: 'payout',
  created_at: new Date(at).toISOString(),
  created_ms: at,
  at,
  endpoint: 'env',
  data_id: `po_${id}`,
  body: Buffer.from(
    JSON.stringify({ id, type: 'payout.completed', data: { id: `po_${id}`, amount: '12.50' } }),
  ),
  data: JSON.stringify({ id: `po_${id}`, amount: '12.50' }),
  conflicts: 0,
  conflict_body: null,
})

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN
}

/** Commits one event every 1/rate s until `until()` says stop; the commit round trips in ms, each
 * filed under what `tag()` said when it was sent. */
async function paced(
  commit: (e: EventParams) => Promise<void>,
  prefix: string,
  until: () => boolean,
  tag: () => 'alone' | 'during' = () => 'alone',
) {
  const latencies = { alone: [] as number[], during: [] as number[] }
  const pending: Promise<void>[] = []
  const start = performance.now()
  for (let i = 0; !until(); i++) {
    const due = start + (i * 1000) / rate
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    const sent = performance.now()
    const into = latencies[tag()]
    pending.push(
      commit(params(`${prefix}_${i}`, Date.now())).then(() => void into.push(performance.now() - sent)),
    )
  }
  await Promise.all(pending)
  return latencies
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'watchdesk-bench-retention-'))
  try {
    const db = unwrap(openDatabase(join(dir, 'watchdesk.db')))
    const old = Date.now() - 100 * dayMs
    const seedStart = performance.now()
    db.prepare(
      `WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n + 1 < ?)
       INSERT INTO events (id, type, grp, created_at, created_ms, received_at, last_delivery_at, endpoint, data_id, body, data)
       SELECT 'evt_old_' || n, 'payout.completed', 'payout', '2026-01-01T00:00:00Z', ?, ? + n, ? + n, 'env', 'po_' || n,
              CAST('{"id":"evt_old_' || n || '","type":"payout.completed","data":{"amount":"12.50"}}' AS BLOB), '{}' FROM i`,
    ).run(oldEvents, old, old, old)
    console.log(`seeded ${oldEvents} old events in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`)
    const committer = workerCommitter(db.name)
    const commit = async (e: EventParams) => {
      const r = await committer.commit([e], [])
      if (!r.ok) throw new Error(r.failure.message)
    }
    await commit(params('evt_warm', Date.now()))

    let deadline = performance.now() + seconds * 1000
    const baseline = (await paced(commit, 'evt_base', () => performance.now() >= deadline)).alone

    // The deletion runs in windows of BENCH_WINDOW_MS, with pauses as long between them: commits
    // sent in a pause (no batch in flight) are a baseline measured under the same machine load as
    // the commits sent in a window, which matters on a shared machine whose load changes by the
    // second. BENCH_WINDOW_MS=0: no pauses (the deletion runs straight through).
    let removing = true
    let inFlight = 0
    const windowStart = performance.now()
    const windowOpen = () =>
      windowMs === 0 || Math.floor((performance.now() - windowStart) / windowMs) % 2 === 0
    const retention = startRetention({
      config: () => RetentionConfig.parse({}),
      target: sqliteRetentionTarget(async (statements) => {
        while (!windowOpen()) await new Promise((r) => setTimeout(r, 5))
        inFlight++
        const done = await committer.prune!(statements).finally(() => inFlight--)
        return done.ok ? done : { ok: false, message: done.failure.message }
      }),
      initial: emptyRetentionState(),
      batchRows,
    })
    const deleteStart = performance.now()
    const removed = retention.runNow().then((s) => {
      removing = false
      return { state: s, ms: performance.now() - deleteStart }
    })
    deadline = performance.now() + seconds * 1000
    // Ingest for at least BENCH_SECONDS and for as long as the deletion runs.
    const tagged = await paced(
      commit,
      'evt_during',
      () => performance.now() >= deadline && !removing,
      () => (windowOpen() || inFlight > 0 ? 'during' : 'alone'),
    )
    const during = tagged.during
    const done = await removed
    retention.stop()
    await committer.close()
    db.close()

    const row = (name: string, l: number[]) =>
      `${name.padEnd(28)} n=${String(l.length).padStart(6)}  p50 ${percentile(l, 50).toFixed(2).padStart(7)} ms  p99 ${percentile(l, 99).toFixed(2).padStart(7)} ms`
    console.log(`commit round trip at ${rate}/s, batches of ${batchRows} rows:`)
    console.log(row('ingest alone', baseline))
    console.log(row('ingest while retention runs', during))
    console.log(
      `p99 ratio (during / alone): ${(percentile(during, 99) / percentile(baseline, 99)).toFixed(2)}× (target ≤ 2×)`,
    )
    if (windowMs > 0) {
      console.log(row('  pauses between windows', tagged.alone))
      console.log(
        `p99 ratio (windows / pauses, same period): ${(percentile(during, 99) / percentile(tagged.alone, 99)).toFixed(2)}×`,
      )
    }
    console.log(
      `retention removed ${done.state.removed.events} events in ${(done.ms / 1000).toFixed(1)} s ` +
        `(${Math.round(done.state.removed.events / (done.ms / 1000))} rows/s)${done.state.error ? `; error: ${done.state.error}` : ''}`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
