/**
 * npm run bench:forward — from one run:
 *  1. signed, deduplicated, fsync-committed deliveries/s of the back end with one forward target
 *     (every event forwarded to an app on loopback) ÷ the same back end without a target, in
 *     alternating rounds after a 1 s warm-up each (goal ≥ 0.85), and the back end's CPU per
 *     delivery in both (forwarding included);
 *  2. the latency a card.authorization.request relay adds to the listener's answer, at p50/p99,
 *     over a target that answers in 1 ms (the same back end without a target is the baseline).
 * The back end runs in a child process, the target app in another; this process sends.
 */
import { fork } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { startBackend } from '../src/main/backend'
import { silentLogger } from '../src/main/log'
import { createMemoryStore } from '../src/main/secrets'
import { signBody } from '../src/main/webhooks'
import { unwrap } from '../src/shared/result'
import { median } from './stats'
import { rawWebhookPost, runCpuMethod, threadCpuMs } from './cpu-method'

const secret = 'whsec_bench_0123456789abcdef'
const self = fileURLToPath(import.meta.url)
const roundSeconds = Number(process.env.BENCH_SECONDS ?? 3)
const rounds = Number(process.env.BENCH_ROUNDS ?? 5)
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32)
const warmSeconds = Number(process.env.BENCH_WARM_SECONDS ?? 1)

// ── children ─────────────────────────────────────────────────────────────────────────────────
async function appChild(): Promise<void> {
  let received = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      received++
      // "answers in 1 ms"
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end('{"approved":true,"by":"app"}')
      }, 1)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  process.on('message', (m) => {
    if (m === 'count') process.send!({ received })
  })
  process.send!({ port: (server.address() as AddressInfo).port })
}

async function backendChild(targetUrl: string, events: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchdesk-bench-forward-'))
  const forward = targetUrl === '-' ? {} : { targets: { app: { url: targetUrl, events: events.split(',') } } }
  const configFile = join(dataDir, 'overlay.json')
  await import('node:fs').then((fs) => fs.writeFileSync(configFile, JSON.stringify({ forward })))
  const backend = unwrap(
    await startBackend({
      dataDir,
      configFile,
      shell: 'serve',
      env: {},
      log: silentLogger,
      listenerPort: 0,
      secrets: createMemoryStore({ 'webhook-secret:wh_bench': secret }),
    }),
  )
  process.on('message', (m) => {
    if (m === 'status') process.send!({ forward: backend.services.forward.status() })
    // CPU of the whole back end (listener, commit worker, forward worker), for the cost per event.
    if (m === 'cpu') process.send!({ cpu: process.cpuUsage(), threads: threadCpuMs() })
  })
  process.on(
    'SIGTERM',
    () =>
      void backend.close().then(() => (rmSync(dataDir, { recursive: true, force: true }), process.exit(0))),
  )
  process.send!({ url: backend.services.webhooks.address().url })
}

/** The baseline: node:http reading the body and answering 200, nothing else. */
async function bareChild(): Promise<void> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 })
      res.end('{}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  process.on('message', (m) => {
    if (m === 'cpu') process.send!({ cpu: process.cpuUsage() })
  })
  process.on('SIGTERM', () => process.exit(0))
  process.send!({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })
}

// ── sender ───────────────────────────────────────────────────────────────────────────────────
/** BENCH_PROFILE=DIR: the back ends run under --cpu-prof (one .cpuprofile per thread, the commit
 * and forward workers included) into DIR. */
const profileDir = process.env.BENCH_PROFILE
function startChild(args: string[]): Promise<{ child: ChildProcess; ready: Record<string, unknown> }> {
  const execArgv = profileDir && args[0] === '--backend' ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : []
  const child = fork(self, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv })
  return new Promise((resolve) =>
    child.once('message', (ready) => resolve({ child, ready: ready as Record<string, unknown> })),
  )
}

const ask = <T>(child: ChildProcess, message: string): Promise<T> =>
  new Promise((resolve) => {
    child.once('message', (m) => resolve(m as T))
    child.send(message)
  })

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

let counter = 0
let lastBody = ''
function nextBody(type: string): string {
  const n = counter++
  return JSON.stringify({
    id: `evt_fwd_${process.pid}_${n}`,
    type,
    created_at: new Date().toISOString(),
    data: { id: `fund_${n}`, status: 'completed', amount: 1000, currency: 'USD' },
  })
}
function post(agent: Agent, url: string, type = 'funding.completed'): Promise<number> {
  const body = nextBody(type)
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/webhooks`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secret, body) },
      },
      (res) => {
        let text = ''
        res.on('data', (c) => (text += c))
        res.on('end', () => {
          lastBody = text
          resolve(res.statusCode ?? 0)
        })
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

async function throughput(url: string, seconds = roundSeconds): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const until = performance.now() + seconds * 1000
  let ok = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) if ((await post(agent, url)) === 200) ok++
    }),
  )
  agent.destroy()
  return ok / roundSeconds
}

async function relayLatencies(url: string, count: number, expected: string): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const started = performance.now()
    const status = await post(agent, url, 'card.authorization.request')
    if (status !== 200 || lastBody !== expected)
      throw new Error(`authorization answered ${status} ${lastBody}, expected ${expected}`)
    times.push(performance.now() - started)
  }
  agent.destroy()
  return times
}

const pct = (values: number[], q: number) => {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!
}
const f = (n: number, d = 2) => n.toFixed(d)

/** Waits until the back end's forward outbox is empty (false after 60 s). */
async function outboxDrained(child: ChildProcess): Promise<boolean> {
  const started = performance.now()
  for (;;) {
    const { forward } = await ask<{ forward: { targets: { pending: number }[] } }>(child, 'status')
    if (forward.targets[0]!.pending === 0) return true
    if (performance.now() - started > 60_000) return false
    await new Promise((res) => setTimeout(res, 100))
  }
}

/** BENCH_ONLY=cpu: the back end with one target (every event forwarded) — its CPU per accepted
 * delivery, the forwarding included (each leg waits for the outbox to drain before reading it) —
 * at fixed offered rates and at saturation, paired with the bare server (bench/cpu-method.ts). */
async function cpuMethod(appUrl: string): Promise<void> {
  await runCpuMethod({
    name: 'back end + forward',
    concurrency,
    async start(kind) {
      const { child, ready } = await startChild(
        kind === 'bare' ? ['--bare'] : ['--backend', appUrl, 'funding.*'],
      )
      const agent = new Agent({ keepAlive: true, maxSockets: 256 })
      let drained = true
      return {
        send: () => post(agent, ready.url as string),
        raw: {
          port: Number(new URL(ready.url as string).port),
          request: () => {
            const body = nextBody('funding.completed')
            return rawWebhookPost(body, signBody(secret, body))
          },
        },
        async cpu() {
          const { cpu, threads } = await ask<{ cpu: NodeJS.CpuUsage; threads?: Record<string, number> }>(
            child,
            'cpu',
          )
          return { ms: (cpu.user + cpu.system) / 1000, parts: threads ?? {} }
        },
        settle: async () => void (kind === 'server' && (drained = await outboxDrained(child))),
        note: async () => (drained ? '' : 'THE OUTBOX DID NOT DRAIN IN 60 s'),
        async stop() {
          agent.destroy()
          await stop(child)
        },
      }
    },
  })
}

async function main(): Promise<void> {
  const app = await startChild(['--app'])
  const appUrl = `http://127.0.0.1:${app.ready.port as number}/hook`
  if (process.env.BENCH_ONLY === 'cpu') {
    await cpuMethod(appUrl)
    await stop(app.child)
    return
  }

  console.log(
    `bench:forward — ${rounds} alternating rounds of ${roundSeconds} s, ${concurrency} deliveries in flight`,
  )
  const alone: number[] = []
  const forwarding: number[] = []
  // The back end's CPU µs per committed delivery (forwarded too, in a "with" round): what the
  // shared machine's load moves least.
  const cpuAlone: number[] = []
  const cpuForwarding: number[] = []
  const cpu = async (child: ChildProcess) => {
    const { cpu } = await ask<{ cpu: NodeJS.CpuUsage }>(child, 'cpu')
    return cpu.user + cpu.system
  }
  let forwardedAll = true
  for (let r = 0; r < rounds; r++) {
    for (const withTarget of [false, true]) {
      const backend = await startChild(['--backend', withTarget ? appUrl : '-', 'funding.*'])
      const url = backend.ready.url as string
      // Every committed event is forwarded: a round waits for the outbox to drain.
      const drained = async () => {
        if (!withTarget) return
        const started = performance.now()
        for (;;) {
          const { forward } = await ask<{ forward: { targets: { pending: number; delivered: number }[] } }>(
            backend.child,
            'status',
          )
          if (forward.targets[0]!.pending === 0) return
          if (performance.now() - started > 60_000) return void (forwardedAll = false)
          await new Promise((res) => setTimeout(res, 200))
        }
      }
      // Steady state: a worker thread's first requests load Node's HTTP, crypto and SQLite code
      // (half a second of a 3 s round on the loaded machine), once per process, not per event.
      await throughput(url, warmSeconds)
      await drained()
      const cpuBefore = await cpu(backend.child)
      const rate = await throughput(url)
      ;(withTarget ? forwarding : alone).push(rate)
      await drained()
      const cpuUsed = (await cpu(backend.child)) - cpuBefore
      ;(withTarget ? cpuForwarding : cpuAlone).push(cpuUsed / (rate * roundSeconds))
      await stop(backend.child)
    }
  }
  const ratio = median(forwarding) / median(alone)
  console.log(
    `ingest alone:           ${alone.map((x) => f(x, 0)).join(', ')} deliveries/s (median ${f(median(alone), 0)})`,
  )
  console.log(
    `ingest + one target:    ${forwarding.map((x) => f(x, 0)).join(', ')} deliveries/s (median ${f(median(forwarding), 0)})`,
  )
  console.log(
    `back end CPU per delivery: alone ${cpuAlone.map((x) => f(x, 0)).join(', ')} µs (median ${f(median(cpuAlone), 0)}); with one target ${cpuForwarding.map((x) => f(x, 0)).join(', ')} µs (median ${f(median(cpuForwarding), 0)}); alone ÷ with ${f(median(cpuAlone) / median(cpuForwarding))}`,
  )
  console.log(
    `ratio: ${f(ratio)} (goal ≥ 0.85)${forwardedAll ? '; every event forwarded' : '; OUTBOX DID NOT DRAIN IN 60 s'}`,
  )

  const count = Number(process.env.BENCH_RELAYS ?? 500)
  const without = await startChild(['--backend', '-', 'funding.*'])
  await relayLatencies(without.ready.url as string, 50, '{}')
  const base = await relayLatencies(without.ready.url as string, count, '{}')
  await stop(without.child)
  const withRelay = await startChild(['--backend', appUrl, 'card.authorization.request'])
  const fromApp = '{"approved":true,"by":"app"}'
  await relayLatencies(withRelay.ready.url as string, 50, fromApp)
  const relayed = await relayLatencies(withRelay.ready.url as string, count, fromApp)
  await stop(withRelay.child)
  await stop(app.child)
  console.log(`authorization answer, ${count} sequential requests; the target answers in 1 ms:`)
  console.log(`  no target (fallback answer): p50 ${f(pct(base, 0.5))} ms, p99 ${f(pct(base, 0.99))} ms`)
  console.log(
    `  relayed from the target:     p50 ${f(pct(relayed, 0.5))} ms, p99 ${f(pct(relayed, 0.99))} ms`,
  )
  console.log(
    `  added by the relay:          p50 ${f(pct(relayed, 0.5) - pct(base, 0.5))} ms, p99 ${f(pct(relayed, 0.99) - pct(base, 0.99))} ms`,
  )
}

const [mode, a, b] = process.argv.slice(2)
if (mode === '--app') void appChild()
else if (mode === '--bare') void bareChild()
else if (mode === '--backend') void backendChild(a!, b!)
else void main()
