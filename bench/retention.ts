/**
 * npm run bench:retention — ingest latency while retention deletes old events (issue 21):
 * a database holding BENCH_OLD_EVENTS (default 1,000,000) events 100 days old; events committed
 * one by one at BENCH_RATE (default 500/s) through the commit worker, as the listener commits them,
 * for BENCH_SECONDS; first without retention (baseline), then while retention removes every old
 * event in its batches through the same worker. Prints p50/p99 of the commit round trip (the part
 * of a delivery's answer that retention can delay) for both, the ratio, and the deletion's pace.
 */
import { retentionRules } from '../src/main/contributions'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase } from '../src/main/db'
import {
  defaultBatchRows,
  emptyRetentionState,
  pruneBatch,
  sqliteRetentionTarget,
  startRetention,
} from '../src/main/db/retention'
import { RetentionConfig } from '../src/shared/config'
import { unwrap } from '../src/shared/result'
import type { Database } from 'better-sqlite3'
import { createCommitTransaction, pruneChunkRows } from '../src/main/webhooks/commit-transaction'
import { workerCommitter } from '../src/main/webhooks/committer'
import type { EventParams } from '../src/main/webhooks/sql'
import type { CommitTraceFile } from '../src/main/webhooks/commit-trace'

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

/** Each delivery's send and answer on the clock the commit worker's trace uses. */
const roundTrips = new Map<string, { sent: number; answered: number }>()
const traceFile = process.env.WATCHDESK_COMMIT_TRACE

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
    const id = `${prefix}_${i}`
    pending.push(
      commit(params(id, Date.now())).then(() => {
        const answered = performance.now()
        into.push(answered - sent)
        roundTrips.set(id, {
          sent: performance.timeOrigin + sent,
          answered: performance.timeOrigin + answered,
        })
      }),
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
    if (process.env.BENCH_PROFILE) return profile(db)
    // The commit worker records what it did (src/main/webhooks/commit-trace.ts) into this file.
    process.env.WATCHDESK_COMMIT_TRACE = traceFile ?? join(dir, 'commit-trace.json')
    const committer = workerCommitter(db.name)
    const commit = async (e: EventParams) => {
      const r = await committer.commit([e], [])
      if (!r.ok) throw new Error(r.failure.message)
    }
    await commit(params('evt_warm', Date.now()))

    let deadline = performance.now() + seconds * 1000
    const alone0 = { threads: threadTimes(), at: performance.now() }
    const baseline = (await paced(commit, 'evt_base', () => performance.now() >= deadline)).alone
    const aloneCpu = threadCpu(alone0)

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
      target: sqliteRetentionTarget(retentionRules, async (statements) => {
        while (!windowOpen()) await new Promise((r) => setTimeout(r, 5))
        inFlight++
        const done = await committer.prune!(statements).finally(() => inFlight--)
        return done.ok ? done : { ok: false, message: done.failure.message }
      }),
      initial: emptyRetentionState(),
      batchRows,
    })
    const during0 = { threads: threadTimes(), at: performance.now() }
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
    const duringCpu = threadCpu(during0)
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
      `CPU per thread, in cores (main thread first): alone ${aloneCpu}; while retention runs ${duringCpu}`,
    )
    waitedBehind(process.env.WATCHDESK_COMMIT_TRACE, 'evt_during', percentile(baseline, 99))
    console.log(
      `retention removed ${done.state.removed.events} events in ${(done.ms / 1000).toFixed(1)} s ` +
        `(${Math.round(done.state.removed.events / (done.ms / 1000))} rows/s)${done.state.error ? `; error: ${done.state.error}` : ''}`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** From the commit worker's trace: for each delivery sent while retention ran, how long it waited
 * in the worker behind retention work (a step's chunks, a step's COMMIT, a checkpoint on the
 * worker's own connection) before its own commit began, and how long its own commit took; then,
 * for the deliveries slower than the baseline's p99, the largest part of each one's round trip:
 * a kind of retention work, earlier deliveries' commits, its own commit, the call's way in (the
 * message, the worker noticing it, group commit's pacing) or the answer's way back (the reply
 * message and the main thread getting to it). */
function waitedBehind(file: string, prefix: string, baselineP99: number): void {
  const trace = JSON.parse(readFileSync(file, 'utf8')) as CommitTraceFile
  const commits = new Map<string, { start: number; end: number }>()
  const retention = trace.spans.filter((s) => s.kind !== 'commit').sort((a, b) => a.start - b.start)
  for (const s of trace.spans) if (s.kind === 'commit') for (const id of s.ids) commits.set(id, s)
  const behind: number[] = []
  const own: number[] = []
  const commitSpans = trace.spans.filter((s) => s.kind === 'commit').sort((a, b) => a.start - b.start)
  /** For each delivery slower than the baseline's p99, the largest part of its round trip. */
  const slow: Record<string, number> = {}
  let slowTotal = 0
  let first = 0
  let firstCommit = 0
  const trips = [...roundTrips].sort((a, b) => a[1].sent - b[1].sent)
  for (const [id, trip] of trips) {
    const commit = commits.get(id)
    if (!id.startsWith(prefix) || !commit) continue
    while (first < retention.length && retention[first]!.end < trip.sent) first++
    const waited: Record<string, number> = {}
    let sum = 0
    for (let i = first; i < retention.length && retention[i]!.start < commit.start; i++) {
      const s = retention[i]!
      const overlap = Math.min(s.end, commit.start) - Math.max(s.start, trip.sent)
      if (overlap <= 0) continue
      waited[s.kind] = (waited[s.kind] ?? 0) + overlap
      sum += overlap
    }
    behind.push(sum)
    own.push(commit.end - commit.start)
    const roundTrip = trip.answered - trip.sent
    if (roundTrip <= baselineP99) continue
    slowTotal++
    while (firstCommit < commitSpans.length && commitSpans[firstCommit]!.end < trip.sent) firstCommit++
    let earlier = 0
    for (let i = firstCommit; i < commitSpans.length && commitSpans[i]!.start < commit.start; i++)
      earlier += Math.max(
        0,
        Math.min(commitSpans[i]!.end, commit.start) - Math.max(commitSpans[i]!.start, trip.sent),
      )
    const ownMs = commit.end - commit.start
    const parts: Record<string, number> = {
      ...waited,
      'earlier commits': earlier,
      'its own commit': ownMs,
      // The answer's way back: the reply message and the main thread getting to it.
      'the answer back': trip.answered - commit.end,
      // Before its commit, neither retention nor other commits: the call's way in, the worker
      // noticing it, group commit's pacing.
      'the call in': commit.start - trip.sent - sum - earlier,
    }
    const top = Object.entries(parts).sort((a, b) => b[1] - a[1])[0]![0]
    slow[top] = (slow[top] ?? 0) + 1
  }
  const ownAlone = [...roundTrips.keys()]
    .filter((id) => id.startsWith('evt_base'))
    .flatMap((id) => {
      const commit = commits.get(id)
      return commit ? [commit.end - commit.start] : []
    })
  /** The answer's way back (commit ended → the main thread has the answer), alone and during. */
  const answerBack = (p: string) =>
    [...roundTrips].flatMap(([id, trip]) => {
      const commit = commits.get(id)
      return id.startsWith(p) && commit ? [trip.answered - commit.end] : []
    })
  const share = behind.filter((b) => b > 0).length / behind.length
  const f = (v: number) => v.toFixed(2)
  console.log(
    `in the commit worker, while retention ran: ${(share * 100).toFixed(1)} % of deliveries waited behind retention work; ` +
      `that wait p90 ${f(percentile(behind, 90))} / p99 ${f(percentile(behind, 99))} / max ${f(Math.max(...behind))} ms; ` +
      `own commit p50 ${f(percentile(own, 50))} / p99 ${f(percentile(own, 99))} ms ` +
      `(without retention ${f(percentile(ownAlone, 50))} / ${f(percentile(ownAlone, 99))} ms)`,
  )
  console.log(
    `  ${slowTotal} deliveries slower than the baseline p99, by the largest part of their round trip: ` +
      Object.entries(slow)
        .sort((a, b) => b[1] - a[1])
        .map(([part, n]) => `${part} ${n}`)
        .join(', '),
  )
  const back = { alone: answerBack('evt_base'), during: answerBack(prefix) }
  console.log(
    `  the answer back (commit ended → the main thread has it): p50 ${f(percentile(back.during, 50))} / p99 ${f(percentile(back.during, 99))} ms ` +
      `(without retention ${f(percentile(back.alone, 50))} / ${f(percentile(back.alone, 99))} ms)`,
  )
  const c = trace.counts
  console.log(
    `  ${c.steps} steps; checkpoints on the worker's connection ${c.checkpointsHere}, on the checkpointer's ${c.checkpointsElsewhere} ` +
      `(the WAL at most ${c.walPagesMax} pages when one ran)`,
  )
}

/** CPU time of each thread of this process (Linux: /proc/self/task), in ms, by thread id. */
function threadTimes(): Map<string, number> {
  const out = new Map<string, number>()
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      // utime and stime, fields 14 and 15 of stat (11 and 12 after the name), in clock ticks.
      out.set(tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100)
    }
  } catch {
    // not Linux: no per-thread figures
  }
  return out
}

/** The busiest threads since `from`, in cores (CPU time ÷ wall time): the main thread first, then
 * the others above 0.05 (the commit worker, the checkpointer, libuv's pool). */
function threadCpu(from: { threads: Map<string, number>; at: number }): string {
  const wall = performance.now() - from.at
  const now = threadTimes()
  const cores = [...now].map(([tid, ms]) => ({ tid, cores: (ms - (from.threads.get(tid) ?? 0)) / wall }))
  const main = cores.find((c) => c.tid === String(process.pid))
  const rest = cores
    .filter((c) => c !== main && c.cores >= 0.05)
    .sort((a, b) => b.cores - a.cores)
    .map((c) => c.cores.toFixed(2))
  return `${main?.cores.toFixed(2) ?? '?'} | ${rest.join(' ') || '-'} (total ${cores.reduce((t, c) => t + c.cores, 0).toFixed(2)})`
}

let cached: ReturnType<typeof createCommitTransaction> | null = null
const transaction0 = (db: Database) => (cached ??= createCommitTransaction(db))

/** BENCH_PROFILE=1: where a batch's time goes, in this thread, on the seeded database: 20 batches
 * of 1,000 rows as one transaction each (the old way: deleting, then COMMIT with its fsync and any
 * automatic checkpoint), then 200 steps of the worker's way (chunks of `pruneChunkRows` for at most
 * 2 ms, COMMIT, then a passive checkpoint of what the step wrote). */
function profile(db: Database): void {
  const stepRows = 200
  const one: number[] = []
  for (let b = 0; b < 200; b++) {
    const t0 = performance.now()
    const r = transaction0(db).commit([
      { id: 0, events: [params(`evt_profile_${b}`, Date.now())], rejections: [] },
    ])
    if (!r[0]!.ok) throw new Error('commit failed')
    one.push(performance.now() - t0)
  }
  const cutoff = Date.now() - 90 * dayMs
  const transaction = createCommitTransaction(db)
  console.log(
    `one delivery's commit (for scale): p50 ${percentile(one, 50).toFixed(2)} / p99 ${percentile(one, 99).toFixed(2)} ms`,
  )
  const walFrames = () => (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log
  db.pragma('wal_checkpoint(TRUNCATE)')
  const stats = (name: string, values: number[]) =>
    `${name} p50 ${percentile(values, 50).toFixed(2)} / p99 ${percentile(values, 99).toFixed(2)} / max ${Math.max(...values).toFixed(2)} ms`
  const del: number[] = []
  const commit: number[] = []
  const pages: number[] = []
  for (let b = 0; b < 20; b++) {
    const statements = pruneBatch(retentionRules, 'events', cutoff, 1_000)
    db.exec('BEGIN IMMEDIATE')
    const t0 = performance.now()
    for (const s of statements) db.prepare(s.sql).run(s.params)
    const t1 = performance.now()
    db.exec('COMMIT')
    commit.push(performance.now() - t1)
    del.push(t1 - t0)
    pages.push(walFrames())
    db.pragma('wal_checkpoint(TRUNCATE)')
  }
  console.log(
    `batches of 1,000 rows: ${stats('delete', del)}; ${stats('COMMIT', commit)}; WAL pages per batch p50 ${percentile(pages, 50)}`,
  )
  db.pragma('wal_autocheckpoint = 1000')
  const auto: number[] = []
  for (let b = 0; b < 20; b++) {
    const t0 = performance.now()
    const done = transaction.prune(pruneBatch(retentionRules, 'events', cutoff, 1_000))
    if (!done.ok) throw new Error(done.failure.message)
    auto.push(performance.now() - t0)
  }
  console.log(`  the same with the automatic checkpoint (1,000 pages): ${stats('whole batch', auto)}`)
  const step: number[] = []
  const checkpoint: number[] = []
  let rows = 0
  for (let b = 0; b < 200; b++) {
    const t0 = performance.now()
    const done = transaction.pruneStep(
      pruneBatch(retentionRules, 'events', cutoff, 1_000),
      stepRows,
      () => performance.now() - t0 >= 2,
    )
    if (!done.ok) throw new Error(done.failure.message)
    rows += done.changes
    const t1 = performance.now()
    db.pragma('wal_checkpoint(PASSIVE)')
    checkpoint.push(performance.now() - t1)
    step.push(t1 - t0)
  }
  console.log(
    `steps (≤ 2 ms and ≤ ${stepRows} rows of ${pruneChunkRows}-row chunks, ${(rows / 200).toFixed(0)} rows per step): ${stats('step with COMMIT', step)}; ${stats('checkpoint after it', checkpoint)}`,
  )
}

await main()
