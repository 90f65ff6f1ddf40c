// `npm run bench:api`: what the console's one contract costs over HTTP (token check, Host/Origin
// check, zod validation, dispatch, Result envelope) against a bare node:http server that reads the
// body and answers the same JSON, measured in the same run, alternating rounds, medians.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { createMemoryStore } from '../src/main/secrets'
import { silentLogger } from '../src/main/log'
import { startConsole } from '../src/main/serve'
import { median } from './stats'

const rounds = 7
const requestsPerRound = 2000
const concurrency = 16

interface Target {
  url: string
  headers: Record<string, string>
}

async function bareServer(body: string): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
      res.end(body)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}

/** `requestsPerRound` calls, `concurrency` at a time; returns calls/s and per-call latencies. */
async function round(target: Target): Promise<{ perSecond: number; latencies: number[] }> {
  const latencies: number[] = []
  let next = 0
  const worker = async () => {
    while (next++ < requestsPerRound) {
      const start = performance.now()
      const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: '{}' })
      if (response.status !== 200) throw new Error(`HTTP ${response.status} from ${target.url}`)
      await response.arrayBuffer()
      latencies.push(performance.now() - start)
    }
  }
  const start = performance.now()
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { perSecond: requestsPerRound / ((performance.now() - start) / 1000), latencies }
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'watchdesk-bench-api-'))
  const started = await startConsole({
    dataDir,
    port: 0,
    listenerPort: 0,
    token: 'bench-token-0123456789',
    secrets: createMemoryStore(),
    log: silentLogger,
    env: {},
  })
  if (!started.ok) throw new Error(started.error.message)
  const consoleApi = started.value
  const subject: Target = {
    url: `${consoleApi.url}/api/call/app.health`,
    headers: { authorization: `Bearer ${consoleApi.token}`, 'content-type': 'application/json' },
  }
  const sample = await (
    await fetch(subject.url, { method: 'POST', headers: subject.headers, body: '{}' })
  ).text()
  const bare = await bareServer(sample)
  const baseline: Target = { url: bare.url, headers: { 'content-type': 'application/json' } }

  await round(baseline)
  await round(subject)
  const base = { rates: [] as number[], latencies: [] as number[] }
  const api = { rates: [] as number[], latencies: [] as number[] }
  for (let i = 0; i < rounds; i++) {
    const b = await round(baseline)
    const a = await round(subject)
    base.rates.push(b.perSecond)
    base.latencies.push(...b.latencies)
    api.rates.push(a.perSecond)
    api.latencies.push(...a.latencies)
  }
  bare.close()
  await consoleApi.close()
  rmSync(dataDir, { recursive: true, force: true })

  const fmt = (n: number) => n.toFixed(2)
  console.log(
    `console API over HTTP vs bare node:http, ${rounds} alternating rounds of ${requestsPerRound} calls, ${concurrency} at a time`,
  )
  console.log(
    `  calls/s      api ${median(api.rates).toFixed(0).padStart(6)}   bare ${median(base.rates).toFixed(0).padStart(6)}   ratio ${fmt(median(api.rates) / median(base.rates))} (target ≥ 0.5)`,
  )
  for (const [name, p] of [
    ['p50', 0.5],
    ['p99', 0.99],
  ] as const) {
    const a = percentile(api.latencies, p)
    const b = percentile(base.latencies, p)
    console.log(
      `  ${name} latency  api ${fmt(a).padStart(6)} ms bare ${fmt(b).padStart(6)} ms ratio ${fmt(a / b)}`,
    )
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
