/**
 * npm run bench:catchup — a console catching up from a relay (issue 21), from one run:
 *  1. baseline "fetch": every page read from the relay's sync API and parsed, nothing stored
 *     (what the wire and the relay allow);
 *  2. baseline "insert": the same events inserted into a bare SQLite table, one transaction per
 *     page with synchronous=FULL (what the disk and SQLite allow);
 *  3. the console: a whole back end (startBackend, as `serve` runs it) following the relay from an
 *     empty database until its source is live with every event stored: events/s (target
 *     ≥ 25,000), the ratio to each baseline, and the console's longest event-loop stall meanwhile
 *     (perf_hooks.monitorEventLoopDelay, target ≤ 50 ms), plus how many distinct progress states
 *     (synced / remaining) the source reported on the way;
 *  4. CPU time per event of the console's process and of the bare insert: on a shared machine the
 *     events/s follow the load, the CPU per event much less (BENCH_THREADS=1 prints it per thread:
 *     the main thread, the sources' commit worker).
 * The relay (SQLite store) runs in a child process, as it would on its own machine.
 */
import { fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir, cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { silentLogger } from '../src/main/log'
import { createRelayToken, openSqliteRelayStore, startRelay } from '../src/main/relay'
import { createMemoryStore, observeSecrets } from '../src/main/secrets'
import { fetchPage } from '../src/main/sources'
import type { SyncPage } from '../src/shared/contract/sync'
import { unwrap } from '../src/shared/result'
import { startFollowingConsole } from '../test/support/following-console'
import { seedCatchUpEvents } from './seed'

const self = fileURLToPath(import.meta.url)
const events = Number(process.env.BENCH_CATCHUP_EVENTS ?? 100_000)
/** The page size the baselines read with: the sync API's largest. */
const pageSize = 5_000

// ── child: the relay ─────────────────────────────────────────────────────────────────────────
async function relayChild(dir: string): Promise<void> {
  process.on('SIGTERM', () => process.exit(0))
  const store = unwrap(openSqliteRelayStore(join(dir, 'relay.db'), { log: silentLogger }))
  await seedCatchUpEvents(store, events, 5_000, (id) => ({
    id: `f_${id}`,
    status: 'completed',
    amount: 1000,
    currency: 'USD',
  }))
  const token = unwrap(await createRelayToken(store, 'bench'))
  const relay = unwrap(
    await startRelay({
      store,
      secrets: observeSecrets(createMemoryStore({})),
      log: silentLogger,
      listener: { host: '127.0.0.1', port: 0 },
      sync: { host: '127.0.0.1', port: 0 },
    }),
  )
  process.send!({ url: relay.syncUrl, token })
}

function startRelayChild(dir: string): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = fork(self, ['child', dir], { stdio: 'inherit' })
  return new Promise((resolve, reject) => {
    child.once('message', (m: { url: string; token: string }) => resolve({ child, ...m }))
    child.once('exit', (code) => reject(new Error(`relay child exited (${code})`)))
  })
}

/** One page for the baselines, asked again once when the first try fails: under load a keep-alive
 * socket the relay has just closed answers UND_ERR_SOCKET, which lost whole runs in sessions 9–11
 * (the console's own source retries by itself; the baselines did not). */
async function pageAfter(url: string, token: string, after: string): Promise<SyncPage> {
  const first = await fetchPage(url, token, after, pageSize)
  return first.ok ? first.value : unwrap(await fetchPage(url, token, after, pageSize))
}

// ── baselines ────────────────────────────────────────────────────────────────────────────────
async function fetchAll(
  url: string,
  token: string,
): Promise<{ perSecond: number; maxStallMs: number; p99StallMs: number }> {
  const loop = monitorEventLoopDelay({ resolution: 5 })
  loop.enable()
  const started = performance.now()
  let after = '0'
  let n = 0
  for (;;) {
    const page = await pageAfter(url, token, after)
    n += page.events.length
    if (page.events.length < pageSize) break
    after = page.next
  }
  if (n !== events) throw new Error(`fetched ${n} of ${events}`)
  loop.disable()
  return {
    perSecond: n / ((performance.now() - started) / 1000),
    maxStallMs: loop.max / 1e6,
    p99StallMs: loop.percentile(99) / 1e6,
  }
}

async function insertAll(
  url: string,
  token: string,
  dir: string,
): Promise<{ perSecond: number; cpuUs: number }> {
  const db = new Database(join(dir, 'bare.db'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.exec(`CREATE TABLE events (seq INTEGER PRIMARY KEY, id TEXT UNIQUE NOT NULL, type TEXT,
    created_at TEXT, received_at INTEGER, endpoint TEXT, data_id TEXT, data TEXT, body BLOB)`)
  const insert = db.prepare(
    'INSERT INTO events (id, type, created_at, received_at, endpoint, data_id, data, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  // The pages are read first: this baseline is the database alone.
  const pages: SyncPage[] = []
  for (let after = '0'; ;) {
    const page = await pageAfter(url, token, after)
    pages.push(page)
    if (page.events.length < pageSize) break
    after = page.next
  }
  const started = performance.now()
  const cpu = process.cpuUsage()
  const page = db.transaction((list: SyncPage['events']) => {
    for (const e of list)
      insert.run(
        e.id,
        e.type,
        e.createdAt,
        e.receivedAt,
        e.endpoint,
        e.dataId,
        e.data,
        Buffer.from(e.body, 'base64'),
      )
  })
  for (const p of pages) page(p.events)
  const perSecond = events / ((performance.now() - started) / 1000)
  const used = process.cpuUsage(cpu)
  db.close()
  return { perSecond, cpuUs: (used.user + used.system) / events }
}

/** CPU time of each thread of this process (Linux: /proc/self/task), in ms. */
function threadTimes(): Map<string, { name: string; ms: number }> {
  const out = new Map<string, { name: string; ms: number }>()
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      // utime and stime, fields 14 and 15 of stat (11 and 12 after the name), in clock ticks.
      out.set(tid, { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 })
    }
  } catch {
    // not Linux: no per-thread figures
  }
  return out
}

// ── the console ──────────────────────────────────────────────────────────────────────────────
async function catchUp(
  url: string,
  token: string,
  dir: string,
  extraConfig: Record<string, unknown> = {},
): Promise<{ perSecond: number; maxStallMs: number; p99StallMs: number; progress: number; cpuUs: number }> {
  const dataDir = mkdtempSync(join(dir, 'console-'))
  const loop = monitorEventLoopDelay({ resolution: 5 })
  const started = performance.now()
  const cpu = process.cpuUsage()
  const threads0 = threadTimes()
  const backend = await startFollowingConsole({
    dataDir,
    config: { sources: { bench: { url } }, ...extraConfig },
    secrets: { 'source-token:bench': token },
  })
  loop.enable()
  const seen = new Set<string>()
  for (;;) {
    const s = backend.services.sources.list()[0]
    if (s?.state === 'catching-up') seen.add(`${s.synced}/${s.remaining}`)
    if (s && s.state === 'live' && s.synced >= events) break
    if (s && (s.state === 'refused' || s.state === 'unreachable' || s.state === 'storage'))
      throw new Error(s.problem ?? s.state)
    await new Promise((r) => setTimeout(r, 20))
  }
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  if (process.env.BENCH_THREADS) {
    const threads1 = threadTimes()
    for (const [tid, t] of threads1) {
      const d = t.ms - (threads0.get(tid)?.ms ?? 0)
      if (d > 20)
        console.log(
          `  thread ${tid} ${t.name}: ${d.toFixed(0)} ms CPU, ${((d * 1000) / events).toFixed(1)} µs per event`,
        )
    }
  }
  loop.disable()
  await backend.close()
  return {
    perSecond: events / seconds,
    maxStallMs: loop.max / 1e6,
    p99StallMs: loop.percentile(99) / 1e6,
    progress: seen.size,
    // Every thread of this process (the console's main thread, its commit and forward workers).
    cpuUs: (used.user + used.system) / events,
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'watchdesk-bench-catchup-'))
  let relay: ChildProcess | null = null
  try {
    const started = await startRelayChild(dir)
    relay = started.child
    await fetchAll(started.url, started.token) // warm-up: the relay's page cache, JIT
    if (process.env.BENCH_AB === 'drift') return await driftPairs(started.url, started.token, dir)
    const fetched = await fetchAll(started.url, started.token)
    const inserted = await insertAll(started.url, started.token, dir)
    const console_ = await catchUp(started.url, started.token, dir)
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
    const c = console_.perSecond
    console.log(
      `baseline: fetch + parse pages     ${fmt(fetched.perSecond)} events/s (event loop stall max ${fetched.maxStallMs.toFixed(0)} ms, p99 ${fetched.p99StallMs.toFixed(0)} ms: the machine's own)`,
    )
    console.log(
      `baseline: bare SQLite insert      ${fmt(inserted.perSecond)} events/s, ${inserted.cpuUs.toFixed(1)} µs CPU per event`,
    )
    console.log(
      `console catch-up ${fmt(events)} events  ${fmt(c)} events/s (target ≥ 25,000)   ${(c / fetched.perSecond).toFixed(2)}× fetch, ${(c / inserted.perSecond).toFixed(2)}× insert; ${console_.cpuUs.toFixed(1)} µs CPU per event (${(console_.cpuUs / inserted.cpuUs).toFixed(1)}× insert)`,
    )
    console.log(
      `console event loop stall max ${console_.maxStallMs.toFixed(0)} ms (target ≤ 50), p99 ${console_.p99StallMs.toFixed(0)} ms; ${console_.progress} progress states seen`,
    )
    console.log(
      `(${cpus().length} cores, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')})`,
    )
  } finally {
    relay?.kill('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  }
}

/** BENCH_AB=drift: the console's catch-up in pairs, the payload drift watch off and on (which goes
 * first alternates), CPU per event of each and their paired ratio: what the watch's reading of
 * every committed event costs a catch-up (BENCH_PAIRS pairs, default 3). */
async function driftPairs(url: string, token: string, dir: string): Promise<void> {
  const ratios: number[] = []
  for (let pair = 0; pair < Number(process.env.BENCH_PAIRS ?? 3); pair++) {
    const cpu: Record<string, number> = {}
    for (const on of pair % 2 === 0 ? [false, true] : [true, false])
      cpu[on ? 'on' : 'off'] = (await catchUp(url, token, dir, { drift: { enabled: on } })).cpuUs
    ratios.push(cpu.on! / cpu.off!)
    console.log(
      `pair ${pair + 1}: drift watch off ${cpu.off!.toFixed(1)} µs, on ${cpu.on!.toFixed(1)} µs CPU per event → ${ratios.at(-1)!.toFixed(3)}× (load average ${loadavg()[0]!.toFixed(1)})`,
    )
  }
  const sorted = [...ratios].sort((a, b) => a - b)
  console.log(`drift watch on ÷ off, median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)}×`)
}

if (process.argv[2] === 'child') void relayChild(process.argv[3]!)
else
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
