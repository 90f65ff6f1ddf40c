/**
 * npm run bench:relay — from one run, against a private PostgreSQL cluster started for it:
 *  1. signed deliveries/s through one relay into PostgreSQL (each committed before its 200, group
 *     commit) as a ratio to a bare node:http server that reads the body and answers 200, in
 *     alternating runs (target ≥ 0.5);
 *  2. two relays on the same database ÷ one relay, the sender split between them (target ≥ 1.6
 *     on a machine with the cores for it);
 *  3. catch-up of 100,000 events from a relay into a console (events/s, target ≥ 20,000) and the
 *     console's longest event-loop stall meanwhile (the UI's back end stays responsive).
 * Relays and the bare server run in child processes; this process sends, and hosts the console.
 */
import { fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { silentLogger } from '../src/main/log'
import { createRelayToken, startRelay } from '../src/main/relay'
import { openPostgresStore } from '../src/main/relay/pg-store'
import { createMemoryStore, observeSecrets } from '../src/main/secrets'
import { signBody } from '../src/main/webhooks'
import type { EventParams } from '../src/main/webhooks/sql'
import { unwrap } from '../src/shared/result'
import { startCluster } from '../test/support/postgres-cluster'
import { startFollowingConsole } from '../test/support/following-console'
import { median } from './stats'

const secret = 'whsec_bench_relay_0123456789'
const self = fileURLToPath(import.meta.url)
const runSeconds = Number(process.env.BENCH_SECONDS ?? 3)
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 64)
const catchUpEvents = Number(process.env.BENCH_CATCHUP_EVENTS ?? 100_000)

// ── child: a relay or the bare server ────────────────────────────────────────────────────────
async function serveChild(kind: string, url: string): Promise<void> {
  process.on('SIGTERM', () => process.exit(0))
  if (kind === 'bare') {
    const server = createServer((req, res) => {
      req.on('data', () => {})
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 })
        res.end('{}')
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    process.send!({ port: (server.address() as AddressInfo).port })
    return
  }
  const store = unwrap(await openPostgresStore(url))
  const relay = unwrap(
    await startRelay({
      store,
      secrets: observeSecrets(createMemoryStore({ 'webhook-secret:wh_bench': secret })),
      log: silentLogger,
      listener: { host: '127.0.0.1', port: 0 },
      sync: { host: '127.0.0.1', port: 0 },
    }),
  )
  process.send!({ port: Number(new URL(kind === 'sync' ? relay.syncUrl : relay.listenerUrl).port) })
}

function startChild(kind: string, url = ''): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(self, ['child', kind, url], { stdio: 'inherit' })
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }))
    child.once('exit', (code) => reject(new Error(`${kind} child exited (${code})`)))
  })
}

// ── sender ───────────────────────────────────────────────────────────────────────────────────
let counter = 0
const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
function post(port: number): Promise<number> {
  const n = counter++
  const body = JSON.stringify({
    id: `evt_relay_bench_${process.pid}_${n}`,
    type: 'funding.completed',
    created_at: new Date().toISOString(),
    data: { id: `fund_${n}`, status: 'completed', amount: 1000, currency: 'USD', target_amount: 998.75 },
  })
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

async function catchUp(url: string): Promise<{ perSecond: number; maxStallMs: number }> {
  // The relay in its own process, as it would be on its own machine; this process is the console.
  const store = unwrap(await openPostgresStore(url))
  const syncChild = await startChild('sync', url)
  const relay = { syncUrl: `http://127.0.0.1:${syncChild.port}` }
  const token = unwrap(await createRelayToken(store, 'bench'))
  const body = (id: string) =>
    JSON.stringify({
      id,
      type: 'funding.completed',
      created_at: '2025-01-01T00:00:00Z',
      data: { id: `f_${id}`, amount: 1 },
    })
  for (let i = 0; i < catchUpEvents; i += 2000) {
    const batch: EventParams[] = Array.from({ length: Math.min(2000, catchUpEvents - i) }, (_, j) => {
      const id = `evt_catchup_${i + j}`
      return {
        id,
        type: 'funding.completed',
        grp: 'payments',
        created_at: '2025-01-01T00:00:00Z',
        created_ms: 1735689600000,
        at: Date.now(),
        endpoint: 'wh_bench',
        data_id: `f_${id}`,
        body: Buffer.from(body(id)),
        data: JSON.stringify({ id: `f_${id}`, amount: 1 }),
      }
    })
    const r = await store.committer.commit(batch, [])
    if (!r.ok) throw new Error(r.failure.message)
  }
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

async function main(): Promise<void> {
  const { cluster, stop } = await startCluster()
  const children: ChildProcess[] = []
  try {
    const url = cluster.createDatabase('bench')
    const bare = await startChild('bare')
    const one = await startChild('relay', url)
    const two = await startChild('relay', url)
    children.push(bare.child, one.child, two.child)
    await load([one.port]) // warm-up: connections, plans, JIT
    const rounds = { bare: [] as number[], one: [] as number[], two: [] as number[] }
    for (let i = 0; i < 3; i++) {
      rounds.bare.push(await load([bare.port]))
      rounds.one.push(await load([one.port]))
      rounds.two.push(await load([one.port, two.port]))
    }
    const [b, o, t] = [median(rounds.bare), median(rounds.one), median(rounds.two)]
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
    console.log(`bare node:http 200          ${fmt(b)} /s`)
    console.log(`one relay → PostgreSQL      ${fmt(o)} /s   ratio ${(o / b).toFixed(2)} (target ≥ 0.5)`)
    console.log(`two relays → PostgreSQL     ${fmt(t)} /s   two ÷ one ${(t / o).toFixed(2)} (target ≥ 1.6)`)
    for (const c of children) c.kill('SIGTERM')
    const caught = await catchUp(cluster.createDatabase('catchup'))
    console.log(
      `catch-up ${catchUpEvents.toLocaleString('en-US')} events    ${fmt(caught.perSecond)} /s (target ≥ 20,000); console event loop max stall ${caught.maxStallMs.toFixed(0)} ms`,
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
