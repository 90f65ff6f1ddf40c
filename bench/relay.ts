/**
 * npm run bench:relay — from one run, against a private PostgreSQL cluster started for it:
 *  1. signed deliveries/s through one relay into PostgreSQL (each committed before its 200, group
 *     commit) as a ratio to a bare node:http server that reads the body and answers 200, in
 *     alternating runs (target ≥ 0.7), with the CPU time each process spent per 1,000 deliveries
 *     and PostgreSQL's transactions, WAL and mean group for them;
 *  2. two relays on the same database ÷ one relay, the sender split between them (target ≥ 1.0),
 *     and the same loads with processes pinned to CPUs (taskset: the scaling model);
 *  3. catch-up of 100,000 events from a relay into a console (events/s, target ≥ 20,000) and the
 *     console's longest event-loop stall meanwhile (the UI's back end stays responsive);
 *  4. ingest p99 at a steady 250 deliveries/s with 100 open /sync/stream followers ÷ the same load
 *     with none, alternating runs (target ≤ 1.5), and the relay's RSS with the followers.
 * Relays and the bare server run in child processes; this process sends, and hosts the console.
 * BENCH_ONLY=store: the relay's PostgreSQL committer alone (no HTTP), CPU per row on each side by
 * group size — what a group costs besides its rows (BENCH_STORE_SQL changes the schema first).
 * BENCH_ONLY=cpu: CPU per delivery at fixed rates, paired with bare (bench/cpu-method.ts), on
 * WAL files recycled as a running server's are (BENCH_WAL=fresh: as initdb left them; warmWal);
 * BENCH_GROUPING=off runs the relays without the adaptive group window (postgresGrouping),
 * BENCH_GROUPING=MS with another longest wait, =MS/TARGET with another target per transaction too;
 * BENCH_GROUPING_AB=A,B alternates two of them by round in BENCH_ONLY=cpu (BENCH_SQL_AB=SQL the schema
 * as shipped against it changed by SQL; BENCH_IDS=random random event and data ids). BENCH_ONLY=schema: that
 * change's PostgreSQL CPU and WAL per delivery alone, paired (schemaAlone). BENCH_ONLY=grouping: ingest and the committer alone
 * at a fixed rate, groupings compared (groupingAlone).
 */
import { randomBytes } from 'node:crypto'
import { execFileSync, fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { silentLogger } from '../src/main/log'
import { createRelayToken, startRelay } from '../src/main/relay'
import {
  migratePostgresUrl,
  openPostgresStore,
  postgresCommitter,
  postgresGrouping,
} from '../src/main/relay/pg-store'
import type { PostgresGrouping } from '../src/main/relay/pg-store'
import { createMemoryStore, observeSecrets } from '../src/main/secrets'
import { createIngest, parseEnvelope, signBody } from '../src/main/webhooks'
import { eventParams } from '../src/main/webhooks/store'
import type { EventParams } from '../src/main/webhooks/sql'
import { unwrap } from '../src/shared/result'
import { startCluster } from '../test/support/postgres-cluster'
import type { PrivateCluster } from '../test/support/postgres-cluster'
import { startFollowingConsole } from '../test/support/following-console'
import { median } from './stats'
import { rawWebhookPost, runCpuMethod } from './cpu-method'
import type { CpuReading } from './cpu-method'
import { seedCatchUpEvents } from './seed'

const secret = 'whsec_bench_relay_0123456789'
const self = fileURLToPath(import.meta.url)
const runSeconds = Number(process.env.BENCH_SECONDS ?? 3)
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 64)
const catchUpEvents = Number(process.env.BENCH_CATCHUP_EVENTS ?? 100_000)

// ── child: a relay or the bare server ────────────────────────────────────────────────────────
async function serveChild(kind: string, url: string): Promise<void> {
  process.on('SIGTERM', () => process.exit(0))
  if (kind === 'followers') {
    // The followers in a process of their own, so reading 100 streams does not delay the sender.
    const [syncPort, token, after] = url.split(' ')
    const streams = follow(Number(syncPort), token!, 100, after!)
    process.on('message', () => process.send!({ received: streams.received() }))
    process.send!({ port: 0 })
    return
  }
  if (kind === 'bare') {
    const server = createServer((req, res) => {
      req.on('data', () => {})
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 })
        res.end('{}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    process.on('message', () => {
      const cpu = process.cpuUsage()
      process.send!({ cpuMs: (cpu.user + cpu.system) / 1000 })
    })
    process.send!({ port: (server.address() as AddressInfo).port })
    return
  }
  // BENCH_PARALLEL: the relay's transactions in flight (its default otherwise).
  const parallelCommits = Number(process.env.BENCH_PARALLEL) || undefined
  // BENCH_GROUPING (or this child's own, from BENCH_GROUPING_AB): groupingOf.
  const grouping = groupingOf(process.env.BENCH_CHILD_GROUPING ?? process.env.BENCH_GROUPING)
  const store = unwrap(await openPostgresStore(url, { parallelCommits, grouping }))
  const relay = unwrap(
    await startRelay({
      store,
      secrets: observeSecrets(createMemoryStore({ 'webhook-secret:wh_bench': secret })),
      log: silentLogger,
      listener: { host: '127.0.0.1', port: 0 },
      sync: { host: '127.0.0.1', port: 0, maxStreams: { perToken: 200, perRelay: 200 } },
    }),
  )
  // Asked by the followers bench: the relay's resident memory.
  process.on('message', () => {
    const cpu = process.cpuUsage()
    process.send!({
      rss: process.memoryUsage().rss,
      live: relay.streams().live,
      cpuMs: (cpu.user + cpu.system) / 1000,
      userMs: cpu.user / 1000,
    })
  })
  process.send!({
    port: Number(new URL(kind === 'sync' ? relay.syncUrl : relay.listenerUrl).port),
    syncPort: Number(new URL(relay.syncUrl).port),
  })
}

/** A relay's group window from BENCH_GROUPING's text: 'off' none (each group goes as soon as the
 * committer takes it), 'MS' another longest wait, 'MS/TARGET' another longest wait and target per
 * transaction (e.g. '8/10'); unset, the product's (postgresGrouping). */
function groupingOf(text: string | undefined): PostgresGrouping | null | undefined {
  if (!text) return undefined
  if (text === 'off') return null
  const [wait, target] = text.split('/').map(Number)
  if (!(wait! > 0) || (target !== undefined && !(target >= 1)))
    throw new Error(`BENCH_GROUPING: '${text}' is not off, MS or MS/TARGET`)
  return { maxWaitMs: wait!, targetPerCommit: target ?? postgresGrouping.targetPerCommit }
}

/** BENCH_GROUPING_AB='A,B' (each as BENCH_GROUPING): in `BENCH_ONLY=cpu`, the relay legs use A in
 * rounds 0, 3, 4, 7… and B in rounds 1, 2, 5, 6…, so two groupings are compared in one run, each
 * paired with its own bare leg, and each as often after its bare leg as before it (the method
 * runs the bare leg first in even rounds). Use BENCH_ROUNDS=4 or 8. */
const groupingAB = process.env.BENCH_GROUPING_AB?.split(',').map((g) => g.trim())
if (groupingAB && (groupingAB.length !== 2 || groupingAB.some((g) => groupingOf(g) === undefined)))
  throw new Error(`BENCH_GROUPING_AB: '${process.env.BENCH_GROUPING_AB}' is not two groupings, e.g. 8/8,8/10`)
const groupingOfRound = (round: number) =>
  groupingAB ? groupingAB[(round + Math.floor(round / 2)) % 2] : undefined
/** BENCH_SQL_AB='SQL' (';'-separated): in `BENCH_ONLY=cpu`, the relay legs of rounds 1, 2, 5, 6…
 * (as BENCH_GROUPING_AB's B) run it on their fresh database once the relay has migrated it and
 * before the leg's warm-up, e.g. a schema change paired with the schema as shipped. */
const sqlAB = process.env.BENCH_SQL_AB?.trim() || undefined
const sqlOfRound = (round: number) => (sqlAB && (round + Math.floor(round / 2)) % 2 === 1 ? sqlAB : undefined)

function startChild(
  kind: string,
  url = '',
  grouping?: string,
): Promise<{ child: ChildProcess; port: number; syncPort: number }> {
  const child = fork(self, ['child', kind, url], {
    stdio: 'inherit',
    ...(grouping ? { env: { ...process.env, BENCH_CHILD_GROUPING: grouping } } : {}),
    // BENCH_PROFILE=DIR writes a CPU profile of each relay child there; BENCH_PERF=1 writes the JIT's
    // symbol map for `perf record -p PID` (/tmp/perf-PID.map), whose profile counts kernel time too.
    execArgv:
      process.env.BENCH_PROFILE && kind === 'relay'
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
        : process.env.BENCH_PERF && kind === 'relay'
          ? ['--perf-basic-prof']
          : // BENCH_RELAY_FLAGS: more node/V8 flags for the relay children (e.g. --trace-deopt).
            (process.env.BENCH_RELAY_FLAGS?.split(' ').filter(Boolean) ?? []).filter(() => kind === 'relay'),
  })
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number; syncPort: number }) =>
      resolve({ child, port: m.port, syncPort: m.syncPort }),
    )
    child.once('exit', (code) => reject(new Error(`${kind} child exited (${code})`)))
  })
}

// ── sender ───────────────────────────────────────────────────────────────────────────────────
let counter = 0
const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
/** BENCH_IDS=random: event ids and data ids as a service makes them (random), not the default
 * nearly sequential ones: each then dirties its own leaf page of a B-tree on it (docs/benchmarks.md). */
const randomIds = process.env.BENCH_IDS === 'random'
function nextBody(): string {
  const n = counter++
  return JSON.stringify({
    id: randomIds ? `evt_${randomBytes(12).toString('hex')}` : `evt_relay_bench_${process.pid}_${n}`,
    type: 'funding.completed',
    created_at: new Date().toISOString(),
    data: {
      id: randomIds ? `fund_${randomBytes(8).toString('hex')}` : `fund_${n}`,
      status: 'completed',
      amount: 1000,
      currency: 'USD',
      target_amount: 998.75,
    },
  })
}
function post(port: number): Promise<number> {
  const body = nextBody()
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/webhooks',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'x-service-signature': signBody(secret, body),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('error', () => resolve(0))
    req.end(body)
  })
}

/** Deliveries/s answered 200 over `runSeconds`, `concurrency` in flight, spread over the ports. */
async function load(ports: number[]): Promise<number> {
  const until = Date.now() + runSeconds * 1000
  let ok = 0
  const failed = new Map<number, number>()
  let turn = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const status = await post(ports[turn++ % ports.length]!)
        if (status === 200) ok++
        else failed.set(status, (failed.get(status) ?? 0) + 1)
      }
    }),
  )
  // Status 0: a kept-alive connection the server had closed while idle (between runs).
  if (failed.size > 0) console.log(`  (not answered 200: ${JSON.stringify(Object.fromEntries(failed))})`)
  return ok / runSeconds
}

// ── CPU time and pinning: the scaling model ─────────────────────────────────────────────────

/** CPU time (ms) of processes by pid, from /proc (utime + stime in clock ticks of 10 ms). */
function cpuMsOf(pids: number[]): number {
  let ticks = 0
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // A backend that exited meanwhile.
    }
  }
  return ticks * 10
}

/** CPU time (ms) of PostgreSQL's processes by role (backend, walwriter, autovacuum worker…), from
 * the process titles: where PostgreSQL's share goes (BENCH_VERBOSE). */
function cpuMsByRole(pids: number[]): Map<string, number> {
  const roles = new Map<string, number>()
  for (const pid of pids) {
    try {
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
      const m = /^postgres: (?:(\w+) \w+ [\d.]+\(\d+\)|([a-z ]+?)(?: process| worker| launcher)?\b)/.exec(
        title,
      )
      const role = m ? (m[1] ? 'backends' : m[2]!.trim()) : 'postmaster'
      roles.set(role, (roles.get(role) ?? 0) + cpuMsOf([pid]))
    } catch {
      // exited meanwhile
    }
  }
  return roles
}

const senderCpuMs = () => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1000
}

const relayCpuMs = async (relay: ChildProcess) => (await relayCpu(relay)).cpuMs

/** A relay child's CPU time (ms), all of it and in user space (the rest is the kernel's). */
const relayCpu = (relay: ChildProcess) =>
  new Promise<{ cpuMs: number; userMs?: number }>((resolve) => {
    relay.once('message', resolve)
    relay.send('ask')
  })

type Cost = { sender: number; server: number; postgres: number }

/** What PostgreSQL did, read exactly (not from the cumulative statistics, which backends flush at
 * most once a second): transaction ids assigned, WAL bytes written, and the group statements
 * (pg_stat_statements: calls and rows of the INSERT INTO events). */
type Work = { xids: number; walBytes: number; groups: number; rows: number }

async function workOf(db: pg.Client): Promise<Work> {
  const { rows } = await db.query<Work>(
    `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xids,
       pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS "walBytes",
       coalesce(sum(calls), 0)::bigint AS groups, coalesce(sum(s.rows), 0)::bigint AS rows
     FROM pg_stat_statements s WHERE query LIKE '%INSERT INTO events%'`,
  )
  return rows[0]!
}

/** BENCH_VERBOSE: the statements PostgreSQL spent the most time on since the last reset (all
 * databases): calls, rows, and planning + execution ms, each statement's first 90 characters. */
async function statementsOf(db: pg.Client): Promise<string> {
  const { rows } = await db.query<{ calls: string; rows: string; ms: number; query: string }>(
    `SELECT calls, rows, total_plan_time + total_exec_time AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
     FROM pg_stat_statements ORDER BY total_plan_time + total_exec_time DESC LIMIT 8`,
  )
  return rows
    .map(
      (r) =>
        `        ${r.ms.toFixed(0).padStart(6)} ms ${r.calls.padStart(6)} calls ${r.rows.padStart(7)} rows  ${r.query}`,
    )
    .join('\n')
}

/** Per 1,000 deliveries: transactions, WAL kB, and the mean group (rows per group statement). */
type PgWork = { xacts: number; walKb: number; group: number }

/** `load`, with the CPU time each side spent per 1,000 deliveries answered 200 (`servers`: the
 * relays, or the bare server), and PostgreSQL's work for them. */
async function costed(
  ports: number[],
  servers: ChildProcess[],
  cluster: PrivateCluster,
  db: pg.Client,
): Promise<{ rate: number; cost: Cost; work: PgWork }> {
  const serverCpu = async () => (await Promise.all(servers.map(relayCpuMs))).reduce((a, b) => a + b, 0)
  const work = await workOf(db)
  const before = { sender: senderCpuMs(), server: await serverCpu(), postgres: cpuMsOf(cluster.pids()) }
  const rolesBefore = cpuMsByRole(cluster.pids())
  const t0 = process.hrtime()
  const rate = await load(ports)
  if (process.env.BENCH_PERF) {
    // CLOCK_MONOTONIC seconds, as `perf record -k CLOCK_MONOTONIC` stamps samples: perf report --time.
    const t1 = process.hrtime()
    console.log(
      `  leg ${servers.length} server(s) ${ports.length} port(s): ${t0[0]}.${String(t0[1]).padStart(9, '0')},${t1[0]}.${String(t1[1]).padStart(9, '0')}`,
    )
  }
  const per = 1000 / Math.max(1, rate * runSeconds)
  if (process.env.BENCH_VERBOSE && servers.length > 0) {
    const roles = [...cpuMsByRole(cluster.pids())].map(
      ([role, ms]) => `${role} ${((ms - (rolesBefore.get(role) ?? 0)) * per).toFixed(1)}`,
    )
    console.log(`  PostgreSQL CPU ms per 1,000 by process, ${ports.length} port(s): ${roles.join(', ')}`)
  }
  const cost = {
    sender: (senderCpuMs() - before.sender) * per,
    server: ((await serverCpu()) - before.server) * per,
    postgres: (cpuMsOf(cluster.pids()) - before.postgres) * per,
  }
  const after = await workOf(db)
  return {
    rate,
    cost,
    work: {
      xacts: (after.xids - work.xids) * per,
      walKb: ((after.walBytes - work.walBytes) * per) / 1024,
      group: (after.rows - work.rows) / Math.max(1, after.groups - work.groups),
    },
  }
}

/** Every thread of these processes onto `cpus` (taskset's list syntax, e.g. "0" or "0,1"). */
function pin(cpuList: string, pids: number[]): void {
  for (const pid of pids)
    execFileSync('taskset', ['-a', '-p', '-c', cpuList, String(pid)], { stdio: 'ignore' })
}

/** The same loads with processes pinned: what a core given to the relays, or to PostgreSQL,
 * changes (docs/benchmarks.md#relay, the scaling model). Needs two CPUs and taskset. */
async function pinned(
  cluster: PrivateCluster,
  one: { child: ChildProcess; port: number },
  two: { child: ChildProcess; port: number },
): Promise<{ apart: number; shared: number; single: number } | null> {
  if (cpus().length < 2 || process.env.BENCH_PINNED === '0') return null
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' })
  } catch {
    return null
  }
  const all = `0-${cpus().length - 1}`
  const relays = [one.child.pid!, two.child.pid!]
  const rest = () => [...cluster.pids(), process.pid]
  const runs = { apart: [] as number[], shared: [] as number[], single: [] as number[] }
  try {
    for (let i = 0; i < 3; i++) {
      pin('0', relays)
      pin('1', rest())
      runs.apart.push(await load([one.port]))
      runs.shared.push(await load([one.port, two.port]))
      pin('0', rest())
      runs.single.push(await load([one.port]))
    }
  } finally {
    pin(all, [...relays, ...rest()])
  }
  return { apart: median(runs.apart), shared: median(runs.shared), single: median(runs.single) }
}

/** The commit path alone, no HTTP: 12 connections (two relays' six commits in flight) each
 * committing groups of 10 new rows as fast as they can, with the commit notice inside each commit
 * (what the relay did) or after it, coalesced to one in flight (what it does). Alternating runs,
 * rows/s. PostgreSQL holds one database-wide lock from a NOTIFY's pre-commit through the WAL flush,
 * so notifying commits cannot share a flush. */
async function noticePlacement(url: string): Promise<{ inside: number; after: number }> {
  const pool = new pg.Pool({ connectionString: url, max: 13 })
  await pool.query('CREATE TABLE notice_bench (id text PRIMARY KEY, body bytea NOT NULL)')
  const insert = `INSERT INTO notice_bench SELECT * FROM unnest($1::text[], $2::bytea[]) ON CONFLICT (id) DO NOTHING RETURNING id`
  const inside = `WITH ins AS (${insert}), note AS (SELECT pg_notify('notice_bench', '') AS sent)
    SELECT ins.id FROM ins LEFT JOIN note ON true`
  let n = 0
  const body = Buffer.alloc(300, 7)
  const run = async (mode: 'inside' | 'after'): Promise<number> => {
    let sending = false
    let again = false
    const notify = (): void => {
      if (sending) {
        again = true
        return
      }
      sending = true
      void pool
        .query(`SELECT set_config('synchronous_commit', 'off', true), pg_notify('notice_bench', '')`)
        .finally(() => {
          sending = false
          if (again) {
            again = false
            notify()
          }
        })
    }
    const until = Date.now() + runSeconds * 1000
    let rows = 0
    await Promise.all(
      Array.from({ length: 12 }, async () => {
        while (Date.now() < until) {
          const ids = Array.from({ length: 10 }, () => `n_${n++}`)
          const done = await pool.query(mode === 'inside' ? inside : insert, [ids, ids.map(() => body)])
          rows += done.rowCount ?? 0
          if (mode === 'after') notify()
        }
      }),
    )
    // The last notice finishes before the next run (or the pool's end).
    while (sending) await new Promise((r) => setTimeout(r, 5))
    return rows / runSeconds
  }
  const runs = { inside: [] as number[], after: [] as number[] }
  try {
    for (let i = 0; i < 3; i++) {
      runs.inside.push(await run('inside'))
      runs.after.push(await run('after'))
    }
  } finally {
    await pool.end()
  }
  return { inside: median(runs.inside), after: median(runs.after) }
}

/** The committer alone: `parallel` callers each committing groups of `size` new deliveries as fast
 * as they can (no HTTP), three runs per size; CPU ms per 1,000 rows in this process and in
 * PostgreSQL. The difference between sizes is what each group costs besides its rows. */
async function storeAlone(cluster: PrivateCluster): Promise<void> {
  const url = cluster.createDatabase('store')
  cluster.psql('store', 'CREATE EXTENSION pg_stat_statements')
  // BENCH_STORE_SQL: statements (';'-separated) run on the migrated schema first, to measure a
  // schema change, e.g. "DROP INDEX events_type_received" (docs/benchmarks.md#relay).
  unwrap(await migratePostgresUrl(url))
  for (const sql of (process.env.BENCH_STORE_SQL ?? '').split(';').filter((q) => q.trim()))
    cluster.psql('store', sql)
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  // Made before the clock starts (parsing and signing are the listener's, not the committer's).
  const templates = Array.from({ length: 64 }, (_, i) => {
    const body = Buffer.from(
      JSON.stringify({
        id: `evt_store_${i}`,
        type: 'funding.completed',
        created_at: new Date().toISOString(),
        data: { id: `fund_${i}`, status: 'completed', amount: 1000, currency: 'USD', target_amount: 998.75 },
      }),
    )
    return eventParams({ envelope: unwrap(parseEnvelope(body)), body, endpoint: 'wh_bench', at: Date.now() })
  })
  let n = 0
  const event = (): EventParams => {
    const t = templates[n % templates.length]!
    return { ...t, id: `${t.id}_${n++}` }
  }
  for (const [size, parallel] of [
    [1, 6],
    [8, 6],
    [16, 2],
    [32, 2],
  ] as const) {
    const store = unwrap(await openPostgresStore(url, { parallelCommits: parallel }))
    const runs: string[] = []
    for (let r = 0; r < 3; r++) {
      const until = Date.now() + runSeconds * 1000
      let rows = 0
      const work = await workOf(db)
      const before = { self: senderCpuMs(), postgres: cpuMsOf(cluster.pids()) }
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (Date.now() < until) {
            const result = await store.committer.commit(Array.from({ length: size }, event), [])
            if (result.ok) rows += size
          }
        }),
      )
      const per = 1000 / Math.max(1, rows)
      const cpu = `${((senderCpuMs() - before.self) * per).toFixed(1)} + ${((cpuMsOf(cluster.pids()) - before.postgres) * per).toFixed(1)}`
      const after = await workOf(db)
      runs.push(
        `${cpu} (groups of ${((after.rows - work.rows) / Math.max(1, after.groups - work.groups)).toFixed(1)})`,
      )
    }
    await store.close()
    console.log(
      `committer alone, ${parallel} callers of ${size}: CPU ms per 1,000 rows, relay + PostgreSQL: ${runs.join('; ')}`,
    )
  }
  await db.end()
}

/** BENCH_ONLY=schema: PostgreSQL's CPU and WAL per delivery with the schema as shipped against it
 * changed by BENCH_SQL_AB (e.g. an index added or dropped), paired: the product's committer on one
 * connection each, groups of BENCH_GROUP (default 10) random ids and data ids, each table filled to
 * BENCH_FILL rows (default 200,000) first, alternating blocks of 150 groups (BENCH_ROUNDS pairs,
 * default 12); the backend's on-CPU time from /proc/PID/schedstat (ns), the WAL from the LSN. Only
 * the backend's own CPU: no HTTP, no sender, so the machine's load scatters it far less than a
 * whole leg (issue 35, session 14: the data-id index with random keys). */
async function schemaAlone(cluster: PrivateCluster): Promise<void> {
  const sql = process.env.BENCH_SQL_AB ?? ''
  const size = Number(process.env.BENCH_GROUP ?? 10)
  const fill = Number(process.env.BENCH_FILL ?? 200_000)
  const pairs = Number(process.env.BENCH_ROUNDS ?? 12)
  const event = (): EventParams => {
    const id = `evt_${randomBytes(12).toString('hex')}`
    const data = {
      id: `fund_${randomBytes(8).toString('hex')}`,
      status: 'completed',
      amount: 1000,
      currency: 'USD',
    }
    const body = Buffer.from(
      JSON.stringify({ id, type: 'funding.completed', created_at: '2026-11-01T00:00:00Z', data }),
    )
    return eventParams({ envelope: unwrap(parseEnvelope(body)), body, endpoint: 'wh_bench', at: Date.now() })
  }
  const sides = []
  for (const name of ['as shipped', 'with BENCH_SQL_AB']) {
    const database = name === 'as shipped' ? 'schema_a' : 'schema_b'
    const url = cluster.createDatabase(database)
    unwrap(await migratePostgresUrl(url))
    if (database === 'schema_b')
      for (const q of sql.split(';').filter((t) => t.trim())) cluster.psql(database, q)
    cluster.psql(
      database,
      `INSERT INTO events (id, type, grp, created_at, created_ms, received_at, last_delivery_at, endpoint, data_id, body, data)
       SELECT 'evt_' || md5(i::text || '${database}'), 'funding.completed', 'payments', 'x', i, i, i, 'wh', 'fund_' || md5((i * 7)::text), '\x7b7d', '{}'
       FROM generate_series(1, ${fill}) i`,
    )
    cluster.psql(database, 'VACUUM ANALYZE events')
    // Never closed while the other side's block runs: one backend per side for the whole run.
    const pool = new pg.Pool({ connectionString: url, max: 1, idleTimeoutMillis: 0 })
    const committer = postgresCommitter(pool, 1, () => {}, 60_000, 60_000, undefined, null)
    const pid = Number((await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid)
    sides.push({ name, pool, committer, pid, us: [] as number[], wal: [] as number[] })
  }
  cluster.psql('postgres', 'CHECKPOINT')
  const onCpuUs = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000
  const lsn = async (pool: pg.Pool) =>
    (await pool.query<{ l: string }>('SELECT pg_current_wal_lsn()::text AS l')).rows[0]!.l
  const rows = 150 * size
  for (let block = 0; block < 2 * pairs; block++) {
    const side = sides[(block + Math.floor(block / 2)) % 2]!
    const from = await lsn(side.pool)
    const before = onCpuUs(side.pid)
    for (let g = 0; g < 150; g++) await side.committer.commit(Array.from({ length: size }, event), [])
    side.us.push((onCpuUs(side.pid) - before) / rows)
    const { rows: b } = await side.pool.query<{ b: string }>(
      `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS b`,
      [from],
    )
    side.wal.push(Number(b[0]!.b) / rows)
  }
  const [a, b] = sides as [(typeof sides)[0], (typeof sides)[0]]
  const ratios = a.us.map((us, i) => b.us[i]! / us).slice(1)
  console.log(
    `schema A/B: BENCH_SQL_AB="${sql}", groups of ${size}, tables filled to ${fill.toLocaleString('en-US')} rows, ${pairs} pairs of ${rows.toLocaleString('en-US')} deliveries`,
  )
  for (const side of sides)
    console.log(
      `  ${side.name.padEnd(18)} PostgreSQL backend ${median(side.us).toFixed(1)} µs per delivery (min ${Math.min(...side.us).toFixed(1)}, max ${Math.max(...side.us).toFixed(1)}), WAL ${median(side.wal).toFixed(0)} bytes per delivery`,
    )
  console.log(
    `  paired ÷ as shipped (first pair left out): median ${median(ratios).toFixed(2)} (min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}; ${ratios.map((r) => r.toFixed(2)).join(' ')})`,
  )
  for (const side of sides) {
    await side.committer.close()
    await side.pool.end()
  }
}

/** BENCH_ONLY=grouping: ingest and the PostgreSQL committer in this process (no HTTP: on a loaded
 * machine a relay behind HTTP lags and forms saturation-sized groups whatever its window, so the
 * window's effect at a fixed rate cannot show there), fed at BENCH_RATE (default 1,000/s, open
 * loop), each grouping of BENCH_GROUPINGS ("MAXWAIT/TARGET,…"; default sessions 8–9's 5/8 and
 * the current one) in turn for BENCH_ROUNDS rounds of BENCH_SECONDS, each on a fresh database: this process's
 * and PostgreSQL's CPU per delivery, deliveries per transaction, and the commit latency's p50/p99
 * (arrival to durable; the window is part of it). */
async function groupingAlone(cluster: PrivateCluster): Promise<void> {
  const rate = Number(process.env.BENCH_RATE ?? 1000)
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
  const groupings = (
    process.env.BENCH_GROUPINGS ?? `5/8,${postgresGrouping.maxWaitMs}/${postgresGrouping.targetPerCommit}`
  )
    .split(',')
    .map((g) => {
      const [maxWaitMs, targetPerCommit] = g.split('/').map(Number)
      return { name: g, grouping: { maxWaitMs: maxWaitMs!, targetPerCommit: targetPerCommit! } }
    })
  const body = (n: number) =>
    Buffer.from(
      JSON.stringify({
        id: `evt_grouping_${n}`,
        type: 'funding.completed',
        created_at: new Date().toISOString(),
        data: { id: `fund_${n}`, status: 'completed', amount: 1000, currency: 'USD', target_amount: 998.75 },
      }),
    )
  const results = new Map<string, string[]>()
  for (let round = 0; round < rounds; round++) {
    for (const { name, grouping } of round % 2 === 0 ? groupings : [...groupings].reverse()) {
      const url = cluster.createDatabase(`grouping_${round}_${name.replace(/\W/g, '_')}`)
      cluster.psql(url.slice(url.lastIndexOf('/') + 1), 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements')
      unwrap(await migratePostgresUrl(url))
      const db = new pg.Client({ connectionString: url })
      await db.connect()
      const store = unwrap(await openPostgresStore(url, { grouping }))
      const ingest = createIngest(store.committer, silentLogger, () => {})
      let n = round * 10_000_000
      const latencies: number[] = []
      const send = () => {
        const raw = body(n++)
        const started = performance.now()
        const envelope = unwrap(parseEnvelope(raw))
        void ingest
          .commit({ envelope, body: raw, endpoint: 'wh_bench', at: Date.now() })
          .then(() => latencies.push(performance.now() - started))
      }
      // Warm-up (JIT), then the measured stretch.
      const drive = async (seconds: number) => {
        const t0 = performance.now()
        let sent = 0
        while (performance.now() - t0 < seconds * 1000) {
          const due = Math.floor(((performance.now() - t0) / 1000) * rate)
          for (; sent < due; sent++) send()
          await new Promise((r) => setTimeout(r, 1))
        }
        await ingest.drain()
        return sent
      }
      await drive(2)
      latencies.length = 0
      const work = await workOf(db)
      const before = { self: senderCpuMs(), postgres: cpuMsOf(cluster.pids()) }
      const sent = await drive(runSeconds)
      const self = senderCpuMs() - before.self
      const postgres = cpuMsOf(cluster.pids()) - before.postgres
      const after = await workOf(db)
      latencies.sort((a, b) => a - b)
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!
      const per = 1000 / sent
      const line = `${((self + postgres) * per).toFixed(0)} µs (relay ${(self * per).toFixed(0)}, PostgreSQL ${(postgres * per).toFixed(0)}), group ${((after.rows - work.rows) / Math.max(1, after.groups - work.groups)).toFixed(1)}, p50 ${at(0.5).toFixed(1)} p99 ${at(0.99).toFixed(1)} ms`
      console.log(`  round ${round} grouping ${name}: ${line}`)
      results.set(name, [...(results.get(name) ?? []), line])
      await store.close()
      await db.end()
    }
  }
  console.log(
    `grouping alone at ${rate}/s, ${runSeconds} s per leg, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' / ')}:`,
  )
  for (const [name, lines] of results) console.log(`  ${name}: ${lines.join('; ')}`)
}

async function catchUp(url: string): Promise<{ perSecond: number; maxStallMs: number }> {
  // The relay in its own process, as it would be on its own machine; this process is the console.
  const store = unwrap(await openPostgresStore(url))
  const syncChild = await startChild('sync', url)
  const relay = { syncUrl: `http://127.0.0.1:${syncChild.port}` }
  const token = unwrap(await createRelayToken(store, 'bench'))
  await seedCatchUpEvents(store, catchUpEvents, 2000, (id) => ({ id: `f_${id}`, amount: 1 }))
  const dataDir = mkdtempSync(join(tmpdir(), 'watchdesk-bench-console-'))
  const loop = monitorEventLoopDelay({ resolution: 5 })
  const started = Date.now()
  const backend = await startFollowingConsole({
    dataDir,
    config: { sources: { bench: { url: relay.syncUrl } } },
    secrets: { 'source-token:bench': token },
  })
  // From here the catch-up runs: the stall is the longest the console's back end was unresponsive.
  loop.enable()
  for (;;) {
    const s = backend.services.sources.list()[0]
    if (s && s.state === 'live' && s.synced >= catchUpEvents) break
    if (s && (s.state === 'refused' || s.state === 'unreachable')) throw new Error(s.problem ?? s.state)
    await new Promise((r) => setTimeout(r, 20))
  }
  const seconds = (Date.now() - started) / 1000
  loop.disable()
  await backend.close()
  syncChild.child.kill('SIGTERM')
  await store.close()
  rmSync(dataDir, { recursive: true, force: true })
  return { perSecond: catchUpEvents / seconds, maxStallMs: loop.max / 1e6 }
}

/** Deliveries sent at a steady `rate` for `seconds` (open loop: one every 1000/rate ms whatever the
 * answers), each timed from send to answer. */
async function paced(port: number, seconds: number, rate: number): Promise<{ p99: number; failed: number }> {
  const latencies: number[] = []
  let failed = 0
  const sent: Promise<void>[] = []
  const started = performance.now()
  for (let i = 0; i < seconds * rate; i++) {
    const wait = started + (i * 1000) / rate - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    const t0 = performance.now()
    sent.push(
      post(port).then((status) => {
        if (status === 200) latencies.push(performance.now() - t0)
        else failed++
      }),
    )
  }
  await Promise.all(sent)
  latencies.sort((a, b) => a - b)
  return { p99: latencies[Math.floor(latencies.length * 0.99)] ?? NaN, failed }
}

/** 100 followers: `/sync/stream` read and discarded, as consoles that are live would. */
function follow(
  syncPort: number,
  token: string,
  count: number,
  after: string,
): { received: () => number; close(): void } {
  let received = 0
  const requests = Array.from({ length: count }, () => {
    const req = request({
      host: '127.0.0.1',
      port: syncPort,
      path: `/sync/stream?after=${after}`,
      headers: { authorization: `Bearer ${token}` },
    })
    req.on('response', (res) => res.on('data', (d: Buffer) => (received += d.length)))
    req.on('error', () => {})
    req.end()
    return req
  })
  return { received: () => received, close: () => requests.forEach((r) => r.destroy()) }
}

async function followers(
  url: string,
): Promise<{ none: number; hundred: number; rssMb: number; failed: number; cpuRatio: number }> {
  const rate = Number(process.env.BENCH_RATE ?? 250)
  const seconds = Math.max(4, runSeconds * 2)
  const store = unwrap(await openPostgresStore(url))
  const token = unwrap(await createRelayToken(store, 'followers'))
  const relay = await startChild('relay', url)
  const ask = () =>
    new Promise<{ rss: number; live: number; cpuMs: number }>((resolve) => {
      relay.child.once('message', resolve)
      relay.child.send('ask')
    })
  try {
    await paced(relay.port, 2, rate) // warm-up
    const runs = { none: [] as number[], hundred: [] as number[] }
    // The relay's own CPU time per run: what the followers cost it, less noisy than a p99 on a
    // shared machine.
    const cpu = { none: [] as number[], hundred: [] as number[] }
    let failed = 0
    let peak = 0
    for (let i = 0; i < 3; i++) {
      let cpuAt = (await ask()).cpuMs
      const quiet = await paced(relay.port, seconds, rate)
      runs.none.push(quiet.p99)
      cpu.none.push((await ask()).cpuMs - cpuAt)
      const before = (await ask()).rss
      // Consoles that were following already: they start at the end of what is stored.
      let end = '0'
      for (let page = unwrap(await store.readAfter(end, 5_000)); page.events.length > 0;) {
        end = page.next
        page = unwrap(await store.readAfter(end, 5_000))
      }
      const streams = await startChild('followers', `${relay.syncPort} ${token} ${end}`)
      // Measured once they follow live (their catch-up of the history is not what is measured).
      while ((await ask()).live < 100) await new Promise((r) => setTimeout(r, 100))
      if (process.env.BENCH_VERBOSE)
        console.log(
          `  rss before followers ${(before / 1048576).toFixed(0)} MB, once live ${((await ask()).rss / 1048576).toFixed(0)} MB`,
        )
      cpuAt = (await ask()).cpuMs
      const loaded = await paced(relay.port, seconds, rate)
      runs.hundred.push(loaded.p99)
      cpu.hundred.push((await ask()).cpuMs - cpuAt)
      failed += quiet.failed + loaded.failed
      peak = Math.max(peak, (await ask()).rss)
      const received = await new Promise<number>((resolve) => {
        streams.child.once('message', (m: { received: number }) => resolve(m.received))
        streams.child.send('received')
      })
      if (received === 0) throw new Error('the followers received nothing')
      streams.child.kill('SIGTERM')
    }
    if (process.env.BENCH_VERBOSE)
      console.log(
        `  p99 per run (ms): none ${runs.none.map((v) => v.toFixed(0)).join(', ')}; 100 followers ${runs.hundred.map((v) => v.toFixed(0)).join(', ')}`,
      )
    return {
      none: median(runs.none),
      hundred: median(runs.hundred),
      rssMb: peak / 1024 / 1024,
      failed,
      cpuRatio: median(cpu.hundred) / median(cpu.none),
    }
  } finally {
    relay.child.kill('SIGTERM')
    await store.close()
  }
}

/** WAL segment files in pg_wal now: one more after a stretch means PostgreSQL made a new one. */
/** The WAL flushes PostgreSQL made and the ms they took (pg_stat_wal; track_wal_io_timing is on in
 * the bench's cluster: two clock reads per write and flush), and the machine's dirty and
 * writeback page cache (/proc/meminfo, kB) — what a round's slow commits waited for: the disk
 * (slow fsyncs, other writers' dirty pages) or the CPU (session 13). */
type Flushes = { syncs: number; syncMs: number; writes: number; writeMs: number; bytes: number; fpi: number }
async function flushesOf(db: pg.Client): Promise<Flushes> {
  const { rows } = await db.query<Flushes>(
    `SELECT wal_sync::float8 AS syncs, wal_sync_time AS "syncMs", wal_write::float8 AS writes, wal_write_time AS "writeMs",
       wal_bytes::float8 AS bytes, wal_fpi::float8 AS fpi FROM pg_stat_wal`,
  )
  return rows[0]!
}
function dirtyKb(): { dirty: number; writeback: number } {
  const info = readFileSync('/proc/meminfo', 'utf8')
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(info)?.[1] ?? NaN)
  return { dirty: kb('Dirty'), writeback: kb('Writeback') }
}
/** What a leg's commits waited for, and the WAL its deliveries wrote (bytes and full-page images
 * per delivery: counts, not load-dependent). */
function flushNote(
  before: Flushes,
  after: Flushes,
  dirty: { dirty: number; writeback: number },
  rows: number,
): string {
  const per = (n: number) => n / Math.max(1, rows)
  const wal = `WAL ${(per(after.bytes - before.bytes) / 1024).toFixed(2)} kB and ${per(after.fpi - before.fpi).toFixed(2)} full pages per delivery`
  const syncs = after.syncs - before.syncs
  const writes = after.writes - before.writes
  const mean = (ms: number, n: number) => (n > 0 ? (ms / n).toFixed(2) : '–')
  return `${wal}, WAL flushes ${syncs} (mean ${mean(after.syncMs - before.syncMs, syncs)} ms; writes ${writes}, mean ${mean(after.writeMs - before.writeMs, writes)} ms), page cache at the start ${Math.round(dirty.dirty / 1024)} MB dirty, ${Math.round(dirty.writeback / 1024)} MB in writeback`
}

async function walSegmentsOf(db: pg.Client): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$'`,
  )
  return rows[0]!.n
}

/** BENCH_WAL=fresh measures on the fresh cluster's WAL as it is (sessions 5–11). By default the
 * cluster's WAL is made like a running server's first: a server that has run recycles its WAL
 * files at each checkpoint (renamed for reuse, min_wal_size's worth), while a cluster just made by
 * initdb has one, so each 16 MB file a leg writes into is created there and then — written full of
 * zeros and fsynced while the commit that needs it holds the WAL write lock, and every commit
 * behind it waits (issue 35, session 12: the commit that made one took 144 ms against a median of
 * 11 at load 15; a 16 MB zero-fill with fsync takes 150–190 ms on this disk loaded). At 1,000/s a
 * leg writes about one file's worth, so about one round in three had that stall inside its
 * measured stretch: the p99 over 25 ms in one round of each quiet run (docs/benchmarks.md). */
const warmWal = process.env.BENCH_WAL !== 'fresh'

/** Six WAL files written and switched, then a checkpoint: they are recycled as the next ones. */
function recycleWal(cluster: PrivateCluster): void {
  for (let i = 0; i < 6; i++) cluster.psql('postgres', 'SELECT txid_current(); SELECT pg_switch_wal()')
  cluster.psql('postgres', 'CHECKPOINT')
}

/** BENCH_ONLY=cpu: the relay + PostgreSQL's CPU per accepted delivery at fixed offered rates and
 * at saturation, paired with the bare server (issue 35's method, bench/cpu-method.ts). Each relay
 * leg gets a fresh relay process and a fresh database, after a checkpoint (the previous leg's WAL
 * files recycled: warmWal); PostgreSQL's CPU is all of its processes'. */
async function cpuMethod(cluster: PrivateCluster): Promise<void> {
  const workUrl = cluster.createDatabase('work')
  cluster.psql('work', 'CREATE EXTENSION pg_stat_statements')
  const db = new pg.Client({ connectionString: workUrl })
  await db.connect()
  if (warmWal) recycleWal(cluster)
  console.log(
    warmWal
      ? `  (PostgreSQL's WAL files recycled as a running server's are: a checkpoint before each relay leg; BENCH_WAL=fresh: not)`
      : `  (BENCH_WAL=fresh: the cluster's WAL as initdb made it, each new WAL file created within a leg)`,
  )
  try {
    await runCpuMethod({
      name: 'relay + PostgreSQL',
      targets: { at1000: 3 },
      concurrency,
      async start(kind, round, rate) {
        const url = kind === 'server' ? cluster.createDatabase(`cpu_${round}_${rate}`) : ''
        // The WAL files the previous leg (and this database's creation) wrote, recycled for this one.
        if (kind === 'server' && warmWal) cluster.psql('postgres', 'CHECKPOINT')
        const grouping = kind === 'server' ? groupingOfRound(round) : undefined
        const { child, port } = await startChild(kind === 'bare' ? 'bare' : 'relay', url, grouping)
        const sql = kind === 'server' ? sqlOfRound(round) : undefined
        for (const q of sql?.split(';').filter((t) => t.trim()) ?? []) cluster.psql(`cpu_${round}_${rate}`, q)
        let work: Work | null = null
        let segments = 0
        let flushes: Flushes | null = null
        let dirty = { dirty: NaN, writeback: NaN }
        return {
          send: () => post(port),
          raw: {
            port,
            request: () => {
              const body = nextBody()
              return rawWebhookPost(body, signBody(secret, body))
            },
          },
          async cpu(): Promise<CpuReading> {
            const own = await relayCpu(child)
            if (kind === 'bare') return { ms: own.cpuMs, parts: {} }
            const pids = cluster.pids()
            const postgres = cpuMsOf(pids)
            // Where it went: the relay in user space and in the kernel, PostgreSQL by process.
            const roles = Object.fromEntries(
              [...cpuMsByRole(pids)].map(([role, ms]) => [`PostgreSQL ${role}`, ms]),
            )
            return {
              ms: own.cpuMs + postgres,
              parts: {
                relay: own.cpuMs,
                'relay user': own.userMs ?? 0,
                'relay kernel': own.cpuMs - (own.userMs ?? 0),
                PostgreSQL: postgres,
                ...roles,
              },
            }
          },
          async reset() {
            if (kind !== 'server') return
            if (process.env.BENCH_VERBOSE) await db.query('SELECT pg_stat_statements_reset()')
            work = await workOf(db)
            segments = await walSegmentsOf(db)
            flushes = await flushesOf(db)
            dirty = dirtyKb()
          },
          async note() {
            if (!work) return ''
            const after = await workOf(db)
            const group = (after.rows - work.rows) / Math.max(1, after.groups - work.groups)
            const statements = process.env.BENCH_VERBOSE ? `\n${await statementsOf(db)}` : ''
            const window = `${grouping ? `, grouping ${grouping}` : ''}${sqlAB ? `, ${sql ? 'with' : 'without'} BENCH_SQL_AB` : ''}`
            const made = (await walSegmentsOf(db)) - segments
            const rows = after.rows - work.rows
            const flushed = flushes ? `, ${flushNote(flushes, await flushesOf(db), dirty, rows)}` : ''
            return `PostgreSQL mean group ${group.toFixed(1)} deliveries${window}, WAL files made ${made}${flushed}${statements}`
          },
          async stop() {
            const exited = new Promise((r) => child.once('exit', r))
            child.kill('SIGTERM')
            await exited
          },
        }
      },
    })
  } finally {
    await db.end()
  }
}

async function main(): Promise<void> {
  // pg_stat_statements: the group statements' count and rows (the mean group), per leg.
  const { cluster, stop } = await startCluster({
    settings: { shared_preload_libraries: 'pg_stat_statements', track_wal_io_timing: 'on' },
  })
  const children: ChildProcess[] = []
  try {
    if (process.env.BENCH_ONLY === 'store') {
      await storeAlone(cluster)
      return
    }
    if (process.env.BENCH_ONLY === 'schema') {
      await schemaAlone(cluster)
      return
    }
    if (process.env.BENCH_ONLY === 'grouping') {
      await groupingAlone(cluster)
      return
    }
    if (process.env.BENCH_ONLY === 'followers') {
      const f = await followers(cluster.createDatabase('followers'))
      console.log(
        `ingest p99 at 250/s, no followers ${f.none.toFixed(1)} ms; 100 followers ${f.hundred.toFixed(1)} ms   ratio ${(f.hundred / f.none).toFixed(2)} (target ≤ 1.5); relay CPU ${f.cpuRatio.toFixed(2)}×; relay RSS ${f.rssMb.toFixed(0)} MB${f.failed ? `; ${f.failed} not answered 200` : ''}`,
      )
      return
    }
    if (process.env.BENCH_ONLY === 'cpu') {
      await cpuMethod(cluster)
      return
    }
    const url = cluster.createDatabase('bench')
    cluster.psql('bench', 'CREATE EXTENSION pg_stat_statements')
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    const bare = await startChild('bare')
    const one = await startChild('relay', url)
    const two = await startChild('relay', url)
    children.push(bare.child, one.child, two.child)
    await load([one.port]) // warm-up: connections, plans, JIT
    await load([two.port])
    const rounds = { bare: [] as number[], one: [] as number[], two: [] as number[] }
    const costs = { bare: [] as Cost[], one: [] as Cost[], two: [] as Cost[] }
    const works = { one: [] as PgWork[], two: [] as PgWork[] }
    for (let i = 0; i < 3; i++) {
      const plain = await costed([bare.port], [bare.child], cluster, db)
      rounds.bare.push(plain.rate)
      costs.bare.push(plain.cost)
      const measured = await costed([one.port], [one.child], cluster, db)
      rounds.one.push(measured.rate)
      costs.one.push(measured.cost)
      works.one.push(measured.work)
      const both = await costed([one.port, two.port], [one.child, two.child], cluster, db)
      rounds.two.push(both.rate)
      costs.two.push(both.cost)
      works.two.push(both.work)
    }
    await db.end()
    const [b, o, t] = [median(rounds.bare), median(rounds.one), median(rounds.two)]
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
    const cost = (of: Cost[], k: keyof Cost) => median(of.map((c) => c[k]))
    const sum = (of: Cost[]) => cost(of, 'sender') + cost(of, 'server') + cost(of, 'postgres')
    console.log(`bare node:http 200          ${fmt(b)} /s`)
    console.log(`one relay → PostgreSQL      ${fmt(o)} /s   ratio ${(o / b).toFixed(2)} (target ≥ 0.7)`)
    console.log(
      `two relays → PostgreSQL     ${fmt(t)} /s   two ÷ one ${(t / o).toFixed(2)} (target ≥ 1.0 here)`,
    )
    console.log(
      `CPU ms per 1,000 deliveries: bare: sender ${cost(costs.bare, 'sender').toFixed(0)} + server ${cost(costs.bare, 'server').toFixed(0)}; ` +
        `relay: sender ${cost(costs.one, 'sender').toFixed(0)} + relay ${cost(costs.one, 'server').toFixed(0)} + PostgreSQL ${cost(costs.one, 'postgres').toFixed(0)} ` +
        `→ CPU-bound ceiling ${(sum(costs.bare) / sum(costs.one)).toFixed(2)}× bare`,
    )
    console.log(
      `CPU ms per 1,000 deliveries, two relays: sender ${cost(costs.two, 'sender').toFixed(0)} + relays ${cost(costs.two, 'server').toFixed(0)} + PostgreSQL ${cost(costs.two, 'postgres').toFixed(0)}`,
    )
    const work = (of: PgWork[]) =>
      `${median(of.map((w) => w.xacts)).toFixed(0)} transactions, ${median(of.map((w) => w.walKb)).toFixed(0)} kB WAL; mean group ${median(of.map((w) => w.group)).toFixed(1)} deliveries`
    console.log(
      `PostgreSQL per 1,000 deliveries: one relay ${work(works.one)}; two relays ${work(works.two)}`,
    )
    bare.child.kill('SIGTERM')
    const p = await pinned(cluster, one, two)
    if (p) {
      console.log(`pinned: one relay on CPU 0, PostgreSQL + sender on CPU 1     ${fmt(p.apart)} /s`)
      console.log(
        `pinned: two relays sharing CPU 0, PostgreSQL + sender on 1   ${fmt(p.shared)} /s   ÷ one ${(p.shared / p.apart).toFixed(2)}`,
      )
      console.log(
        `pinned: relay, PostgreSQL and sender all on CPU 0           ${fmt(p.single)} /s   second core ×${(p.apart / p.single).toFixed(2)}`,
      )
    }
    for (const c of children) c.kill('SIGTERM')
    const notice = await noticePlacement(cluster.createDatabase('notice'))
    console.log(
      `commit path alone, 12 in flight: notice inside the commit ${fmt(notice.inside)} rows/s; after it ${fmt(notice.after)} rows/s   ×${(notice.after / notice.inside).toFixed(2)}`,
    )
    if (process.env.BENCH_ONLY === 'throughput') return
    const caught = await catchUp(cluster.createDatabase('catchup'))
    console.log(
      `catch-up ${catchUpEvents.toLocaleString('en-US')} events    ${fmt(caught.perSecond)} /s (target ≥ 20,000); console event loop max stall ${caught.maxStallMs.toFixed(0)} ms`,
    )
    const f = await followers(cluster.createDatabase('followers'))
    console.log(
      `ingest p99 at 250/s, no followers ${f.none.toFixed(1)} ms; 100 followers ${f.hundred.toFixed(1)} ms   ratio ${(f.hundred / f.none).toFixed(2)} (target ≤ 1.5); relay CPU ${f.cpuRatio.toFixed(2)}×; relay RSS ${f.rssMb.toFixed(0)} MB${f.failed ? `; ${f.failed} not answered 200` : ''}`,
    )
    console.log(
      `(${runSeconds} s per run, ${concurrency} in flight, ${(await import('node:os')).cpus().length} cores)`,
    )
  } finally {
    for (const c of children) c.kill('SIGTERM')
    stop()
  }
}

if (process.argv[2] === 'child') void serveChild(process.argv[3]!, process.argv[4] ?? '')
else
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
