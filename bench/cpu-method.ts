/** How the benches measure what an operator pays: server CPU per accepted delivery at a fixed
 * offered rate, paired with a bare node:http server in alternating rounds of the same run, with the
 * rounds where the sender itself ran out of CPU left out (issue 35; docs/benchmarks.md, Method). */
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { cpus, loadavg } from 'node:os'
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks'
import { median } from './stats'

/** A round whose sender used more than this share of its core measured the sender, not the server. */
export const generatorBoundShare = 0.9

/** What every table is printed with: the tree, Node, the CPU, and how loaded the machine was. */
export function benchHeader(): string {
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' })
    if (dirty.trim()) commit += ' (with uncommitted changes)'
  } catch {
    // not a checkout
  }
  const model = cpus()[0]?.model ?? 'unknown CPU'
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')
  return `tree ${commit} · Node ${process.version} · ${model} × ${cpus().length} · load average ${load} (1/5/15 min)`
}

/** The sender's CPU over a stretch of wall time: its share of one core (it is one thread's loop). */
export function senderMeter(): { stop(): number } {
  const cpu = process.cpuUsage()
  const wall = performance.now()
  return {
    stop() {
      const used = process.cpuUsage(cpu)
      return (used.user + used.system) / 1000 / (performance.now() - wall)
    },
  }
}

/** The machine's busy share over a stretch, from /proc/stat (all cores): what else was running. */
export function machineMeter(): { stop(): number } {
  const read = () => {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    const idle = fields[3]! + (fields[4] ?? 0)
    return { idle, total: fields.reduce((a, b) => a + b, 0) }
  }
  const before = read()
  return {
    stop() {
      const after = read()
      const total = after.total - before.total
      return total > 0 ? 1 - (after.idle - before.idle) / total : 0
    },
  }
}

/** What held up the sender's own thread over a stretch: its garbage collections (count, longest,
 * total) and its event loop's delay (p99, longest). A latency round whose bare leg is slow too may
 * be the sender's stall, not either server's (issue 35: the first rounds' p99 misses). */
export function senderStallMeter(): { stop(): string } {
  const pauses: number[] = []
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push(entry.duration)
  })
  gc.observe({ entryTypes: ['gc'] })
  const loop = monitorEventLoopDelay({ resolution: 1 })
  loop.enable()
  return {
    stop() {
      gc.disconnect()
      loop.disable()
      const longest = pauses.length ? Math.max(...pauses) : 0
      const total = pauses.reduce((a, b) => a + b, 0)
      return `sender GC ${pauses.length}× (longest ${longest.toFixed(1)} ms, ${total.toFixed(0)} ms in all), its loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms (longest ${(loop.max / 1e6).toFixed(1)})`
    },
  }
}

/** "2.31× (min 2.20, max 2.45; 3 paired rounds)", or why there is none. */
export function pairedRatio(ratios: number[], leftOut: number): string {
  if (ratios.length === 0) return `no round counted (${leftOut} generator-bound)`
  const shown = (n: number) => n.toFixed(2)
  const out = leftOut > 0 ? `, ${leftOut} generator-bound left out` : ''
  return `${shown(median(ratios))}× (min ${shown(Math.min(...ratios))}, max ${shown(Math.max(...ratios))}; ${ratios.length} paired rounds${out})`
}

/** Little's law as a check of the measurement: the concurrency the sender saw on average should be
 * the rate times the mean latency; a large gap means the loop was not open (the sender lagged). */
export function littlesLaw(rate: number, meanLatencyMs: number, meanInFlight: number): string {
  const expected = (rate * meanLatencyMs) / 1000
  const gap = expected > 0 ? Math.abs(meanInFlight - expected) / expected : 0
  return `Little's law: rate × mean latency = ${expected.toFixed(2)}, mean in flight ${meanInFlight.toFixed(2)} (${gap <= 0.25 ? 'consistent' : 'INCONSISTENT: the sender lagged'})`
}

// ── the paired rounds themselves, for any server (bench:ingest, bench:relay, bench:forward) ───

/** CPU time a leg's server has used so far (ms), in all: its process (every thread) and what it
 * needs to answer (PostgreSQL for the relay); `parts` splits it (threads, processes) for the table. */
export interface CpuReading {
  ms: number
  parts: Record<string, number>
}

/** One fresh server for one leg, as the method drives it. */
export interface CpuLegServer {
  /** Posts one delivery; resolves with the answer's status. */
  send(): Promise<number>
  cpu(): Promise<CpuReading>
  /** Before the measured stretch: the server forgets what the warm-up did (its own statistics). */
  reset?(): void | Promise<void>
  /** After the measured stretch, before the CPU is read: waits for the work a delivery causes after
   * its answer (the forward outbox draining), so its CPU is counted. */
  settle?(): Promise<void>
  /** For saturation: the server's port and one whole HTTP/1.1 request (a fresh delivery each call),
   * so the pipelined sender can outrun the server (`saturate`); without it, closed-loop `send`. */
  raw?: { port: number; request(): Buffer }
  /** Said after the CPU figure (deliveries per commit, a group size). */
  note?(): Promise<string>
  stop(): Promise<void>
}

export interface CpuMethodPlan {
  /** The measured server's name in the table ("listener", "relay + PostgreSQL"). */
  name: string
  /** A fresh server of the kind for one leg (`round` and `rate` name its data, when it keeps any). */
  start(kind: 'bare' | 'server', round: number, rate: number | 'saturation'): Promise<CpuLegServer>
  /** The issue's targets, named beside the ratios (× bare). */
  targets?: { at1000?: number; goal1000?: number; saturation?: number }
  /** Closed-loop senders at saturation (default BENCH_CONCURRENCY or 64). */
  concurrency?: number
}

export interface CpuLegResult {
  us: number
  senderShare: number
  machineShare: number
  rate: number
  p99: number | null
  meanMs: number | null
  meanInFlight: number | null
  /** Where the CPU went per delivery, and the server's note. */
  detail: string
  /** The sender's own stalls during the stretch (`senderStallMeter`). */
  senderStalls: string
}

/** Open loop at a fixed rate: sends on schedule whatever the answers, each timed from send to
 * answer, sampling how many were in flight (for the Little's-law check). */
export async function openLoop(
  send: () => Promise<number>,
  perSecond: number,
  seconds: number,
): Promise<{ latencies: number[]; meanInFlight: number }> {
  const latencies: number[] = []
  const inFlight = new Set<Promise<void>>()
  let samples = 0
  let inFlightSum = 0
  const start = performance.now()
  const total = Math.round(perSecond * seconds)
  let sent = 0
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - start) / 1000) * perSecond))
    for (; sent < due; sent++) {
      const t0 = performance.now()
      const request: Promise<void> = send().then((status) => {
        if (status !== 200) throw new Error(`answered ${status}`)
        latencies.push(performance.now() - t0)
        inFlight.delete(request)
      })
      inFlight.add(request)
    }
    samples++
    inFlightSum += inFlight.size
    await new Promise((r) => setTimeout(r, 1))
  }
  await Promise.all(inFlight)
  return { latencies: latencies.sort((a, b) => a - b), meanInFlight: inFlightSum / Math.max(1, samples) }
}

const saturationConnections = Number(process.env.BENCH_PIPE_CONNECTIONS ?? 16)
const saturationDepth = Number(process.env.BENCH_PIPE_DEPTH ?? 16)
/** The most deliveries per second a pool is built for (BENCH_POOL_RATE): more than any server here. */
const poolRate = Number(process.env.BENCH_POOL_RATE ?? 60_000)

/** A signed webhook delivery as whole HTTP/1.1 bytes (keep-alive), for the pipelined sender. */
export function rawWebhookPost(body: string, signature: string, path = '/webhooks'): Buffer {
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nx-service-signature: ${signature}\r\n\r\n${body}`,
  )
}

function buildPool(request: () => Buffer, seconds: number): Buffer[] {
  return Array.from({ length: Math.ceil(poolRate * seconds) }, request)
}

/** Saturation with a sender far cheaper than any server: pre-built requests pipelined over
 * `saturationConnections` keep-alive connections, `saturationDepth` in flight on each, answers
 * counted by their status lines. A closed loop of node:http clients spends more CPU per request
 * than a bare server does, so on two cores it runs out first (generator-bound); this one spends a
 * few µs. Returns the deliveries answered 200 within `seconds` (stops early if the pool runs dry). */
export async function saturate(raw: { port: number }, pool: Buffer[], seconds: number): Promise<number> {
  const until = performance.now() + seconds * 1000
  let next = 0
  let ok = 0
  let failed = 0
  const marker = Buffer.from('HTTP/1.1 ')
  const take = (n: number): Buffer | null => {
    const k = Math.min(n, pool.length - next)
    if (k <= 0 || performance.now() >= until) return null
    const batch = pool.slice(next, next + k)
    next += k
    return Buffer.concat(batch)
  }
  await Promise.all(
    Array.from(
      { length: saturationConnections },
      () =>
        new Promise<void>((resolve, reject) => {
          const socket = connect(raw.port, '127.0.0.1')
          socket.setNoDelay(true)
          let inFlight = 0
          // The last bytes of the previous chunk: a status line split across chunks is counted once.
          let tail: Buffer = Buffer.alloc(0)
          const send = (n: number) => {
            const batch = take(n)
            if (batch) {
              inFlight += n
              socket.write(batch)
            } else if (inFlight === 0) socket.end()
          }
          socket.on('connect', () => send(saturationDepth))
          socket.on('data', (chunk: Buffer) => {
            const data = tail.length ? Buffer.concat([tail, chunk]) : chunk
            let answered = 0
            for (
              let at = data.indexOf(marker);
              at >= 0 && at + 12 <= data.length;
              at = data.indexOf(marker, at + 12)
            ) {
              answered++
              if (data.toString('latin1', at + 9, at + 12) === '200') ok++
              else failed++
            }
            tail = data.subarray(Math.max(0, data.length - 11))
            inFlight -= answered
            if (answered > 0) send(answered)
          })
          socket.on('end', () => resolve())
          socket.on('close', () => resolve())
          socket.on('error', reject)
        }),
    ),
  )
  if (failed) throw new Error(`${failed} deliveries were not answered 200`)
  return ok
}

/** Closed loop: `concurrency` senders, each sending the next delivery as soon as one is answered. */
export async function closedLoop(
  send: () => Promise<number>,
  concurrency: number,
  seconds: number,
): Promise<number> {
  const until = performance.now() + seconds * 1000
  let done = 0
  let failed = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        if ((await send()) === 200) done++
        else failed++
      }
    }),
  )
  if (failed) throw new Error(`${failed} deliveries were not answered 200`)
  return done
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

/** µs per delivery of each part that spent at least 1 µs, busiest first. */
function partsPerDelivery(before: CpuReading, after: CpuReading, deliveries: number): string {
  const parts = Object.entries(after.parts)
    .map(([name, ms]) => [name, ((ms - (before.parts[name] ?? 0)) * 1000) / deliveries] as const)
    .filter(([, us]) => us >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, us]) => `${name} ${fmt(us)}`)
  return parts.length > 0 ? ` (${parts.join(', ')})` : ''
}

/** Seconds of warm-up at 500/s before each leg's measured stretch (BENCH_WARMUP, default 1). A
 * fresh server's first seconds include V8 compiling its hot code: the relay's process spent about
 * a fifth of its CPU in the optimizing compiler's threads in its first 10 s at 1,000/s, and under
 * a tenth after 15 s (docs/benchmarks.md); a longer warm-up measures the steady state an operator
 * pays for, not the start. */
const warmUpSeconds = Number(process.env.BENCH_WARMUP ?? 1)
/** BENCH_WARMUP_AT=leg: the warm-up runs at the leg's own load (saturation pipelined, a fixed rate
 * at that rate) instead of 500/s. At 500/s for 1 s the listener's hot code is still being compiled
 * by V8 (Maglev, then TurboFan, on its helper threads) seconds into a saturation leg's measured
 * stretch (`--trace-opt`, issue 35, session 13): a cost paid once per process start, which the bare
 * server, with far less code, hardly pays. */
const warmUpAtLegLoad = process.env.BENCH_WARMUP_AT === 'leg'
/** Seconds a saturation leg warms up at its own load, pipelined, before its measured stretch
 * (BENCH_SATURATION_WARMUP, default 10; 0: the 500/s warm-up as the fixed rates have it), both
 * legs alike (issue 35, session 14). After 1 s at 500/s the listener was still tiering up through
 * the whole 5 s stretch: in successive 3 s stretches at saturation its CPU per delivery fell 131,
 * 97, 82, 84, 71 µs, the V8 helper threads' share (the optimizing compiler) from ~30 µs to 1–4 µs,
 * while the bare server's stayed 25–37 µs — a cost a listener pays once per start, which the
 * stretch charged to every delivery of it. 10 s is where the listener's figure stopped falling
 * (docs/benchmarks.md, the listener's session-14 section). */
const saturationWarmUpSeconds = Number(process.env.BENCH_SATURATION_WARMUP ?? 10)

/** The saturation warm-up: pipelined at the leg's own load, a pool per second (a pool for the whole
 * stretch at `poolRate` would hold hundreds of MB of requests). Returns the server's CPU per
 * delivery over the last second, to show the measured stretch starts warm. */
async function warmUpAtSaturation(
  server: CpuLegServer,
  raw: NonNullable<CpuLegServer['raw']>,
  seconds: number,
): Promise<number | null> {
  let last: number | null = null
  for (let s = 0; s < seconds; s++) {
    const pool = buildPool(raw.request, 1)
    const before = s === seconds - 1 ? await server.cpu() : null
    const answered = await saturate(raw, pool, 1)
    if (before && answered > 0) last = (((await server.cpu()).ms - before.ms) * 1000) / answered
  }
  return last
}

/** One leg of one round: a fresh server, the warm-up at 500/s, then the measured stretch. */
async function cpuLeg(
  plan: CpuMethodPlan,
  kind: 'bare' | 'server',
  round: number,
  rate: number | 'saturation',
  seconds: number,
): Promise<CpuLegResult> {
  const server = await plan.start(kind, round, rate)
  try {
    // Warm-up, not counted: a saturation leg at its own load (`saturationWarmUpSeconds`, or
    // BENCH_WARMUP with BENCH_WARMUP_AT=leg); a fixed rate at 500/s, or (BENCH_WARMUP_AT=leg) at
    // the leg's own rate.
    let warmedUs: number | null = null
    const { raw } = server
    const saturationWarmUp = warmUpAtLegLoad ? warmUpSeconds : saturationWarmUpSeconds
    if (rate === 'saturation' && raw && saturationWarmUp > 0)
      warmedUs = await warmUpAtSaturation(server, raw, saturationWarmUp)
    else
      await openLoop(
        () => server.send(),
        warmUpAtLegLoad && rate !== 'saturation' ? rate : 500,
        warmUpSeconds,
      )
    // Built before the stretch, so the sender's measured CPU is the sending alone.
    const pool = rate === 'saturation' && server.raw ? buildPool(server.raw.request, seconds) : []
    await server.reset?.()
    const sender = senderMeter()
    const stalls = senderStallMeter()
    const machine = machineMeter()
    const before = await server.cpu()
    const started = performance.now()
    let deliveries: number
    let latencies: number[] | null = null
    let meanInFlight: number | null = null
    if (rate === 'saturation' && server.raw) deliveries = await saturate(server.raw, pool, seconds)
    else if (rate === 'saturation')
      deliveries = await closedLoop(() => server.send(), plan.concurrency ?? concurrencyDefault, seconds)
    else {
      const run = await openLoop(() => server.send(), rate, seconds)
      latencies = run.latencies
      meanInFlight = run.meanInFlight
      deliveries = latencies.length
    }
    const wallS = (performance.now() - started) / 1000
    const senderShare = sender.stop()
    const senderStalls = stalls.stop()
    await server.settle?.()
    const after = await server.cpu()
    const machineShare = machine.stop()
    const us = ((after.ms - before.ms) * 1000) / deliveries
    const mean = latencies ? latencies.reduce((a, b) => a + b, 0) / latencies.length : null
    const note = (await server.note?.()) ?? ''
    return {
      us,
      senderShare,
      machineShare,
      rate: deliveries / wallS,
      p99: latencies ? quantile(latencies, 0.99) : null,
      meanMs: mean,
      meanInFlight,
      detail: `${fmt(us)} µs${partsPerDelivery(before, after, deliveries)}${note ? `; ${note}` : ''}${warmedUs === null ? '' : `; warmed ${saturationWarmUp} s at its own load (last second ${fmt(warmedUs)} µs)`}`,
      senderStalls,
    }
  } finally {
    await server.stop()
  }
}

const concurrencyDefault = Number(process.env.BENCH_CONCURRENCY ?? 64)

/** Seconds the sender warms itself up before the first round (BENCH_SENDER_WARMUP, default 5; 0:
 * none), against a bare server at the first fixed rate, counted on neither side. Each leg's own
 * warm-up warms that leg's fresh server, not the sender, which lives for the whole run: in the
 * quiet runs after session 13 every run's first round showed the *bare* server's p99 at 8–14 ms
 * against 3–6 ms later, with the sender's own GC pauses of 6–13 ms (1.5–2.6 later) — a fresh
 * sender's heap growing and its code being compiled, measured as either server's latency. */
const senderWarmUpSeconds = Number(process.env.BENCH_SENDER_WARMUP ?? 5)

async function warmUpSender(plan: CpuMethodPlan, rate: number): Promise<string> {
  const server = await plan.start('bare', -1, rate)
  try {
    const stalls = senderStallMeter()
    await openLoop(() => server.send(), rate, senderWarmUpSeconds)
    return stalls.stop()
  } finally {
    await server.stop()
  }
}

/** Server CPU per accepted delivery at fixed offered rates and at saturation, paired with the bare
 * server in alternating rounds (docs/benchmarks.md, Method). BENCH_ROUNDS (3), BENCH_SECONDS per
 * leg (5), BENCH_RATES (100,1000,saturation). */
export async function runCpuMethod(plan: CpuMethodPlan): Promise<void> {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
  const seconds = Number(process.env.BENCH_SECONDS ?? 5)
  const rates = (process.env.BENCH_RATES ?? '100,1000,saturation')
    .split(',')
    .map((r) => (r === 'saturation' ? r : Number(r)))
  console.log(`CPU per delivery, ${plan.name} paired with bare node:http — ${benchHeader()}`)
  console.log(
    `  (${rounds} rounds, ${seconds} s per leg, each leg on a fresh server after a ${warmUpSeconds} s warm-up at ${warmUpAtLegLoad ? "the leg's own load" : '500/s'}${rates.includes('saturation') && saturationWarmUpSeconds > 0 && !warmUpAtLegLoad ? `; at saturation ${saturationWarmUpSeconds} s at its own load` : ''})`,
  )
  const firstRate = rates.find((r): r is number => r !== 'saturation')
  if (senderWarmUpSeconds > 0 && firstRate !== undefined) {
    const stalls = await warmUpSender(plan, firstRate)
    console.log(
      `  (the sender warmed up first: ${senderWarmUpSeconds} s at ${firstRate.toLocaleString('en-US')}/s against a bare server, counted on neither side; ${stalls})`,
    )
  }
  for (const rate of rates) {
    const ratios: number[] = []
    const kept: { bare: CpuLegResult; server: CpuLegResult }[] = []
    let leftOut = 0
    for (let round = 0; round < rounds; round++) {
      // Alternate which leg goes first, so a drift in the machine's load falls on both sides.
      const order: ('bare' | 'server')[] = round % 2 === 0 ? ['bare', 'server'] : ['server', 'bare']
      const legs: Partial<Record<'bare' | 'server', CpuLegResult>> = {}
      for (const kind of order) legs[kind] = await cpuLeg(plan, kind, round, rate, seconds)
      const { bare, server } = legs as { bare: CpuLegResult; server: CpuLegResult }
      if (Math.max(bare.senderShare, server.senderShare) > generatorBoundShare) {
        leftOut++
        continue
      }
      ratios.push(server.us / bare.us)
      kept.push({ bare, server })
    }
    printRate(plan, rate, ratios, leftOut, kept)
  }
}

function printRate(
  plan: CpuMethodPlan,
  rate: number | 'saturation',
  ratios: number[],
  leftOut: number,
  kept: { bare: CpuLegResult; server: CpuLegResult }[],
): void {
  const label = rate === 'saturation' ? 'at saturation' : `at ${rate.toLocaleString('en-US')}/s`
  const med = (pick: (r: { bare: CpuLegResult; server: CpuLegResult }) => number) =>
    kept.length ? fmt(median(kept.map(pick))) : '—'
  const t = plan.targets ?? {}
  const target =
    rate === 1000 && t.at1000
      ? ` (target ≤ ${t.at1000}×${t.goal1000 ? `, goal ${t.goal1000}×` : ''})`
      : rate === 'saturation' && t.saturation
        ? ` (target ≤ ${t.saturation}×)`
        : ''
  console.log(
    `  ${label.padEnd(16)} ${plan.name} ${med((r) => r.server.us)} µs, bare ${med((r) => r.bare.us)} µs per delivery → ${pairedRatio(ratios, leftOut)}${target}`,
  )
  for (const { bare, server } of kept) {
    const latency =
      server.p99 === null
        ? `${fmt(server.rate)}/s achieved (bare ${fmt(bare.rate)}/s)`
        : `p99 ${fmt(server.p99, 2)} ms${rate === 1000 ? ` (target ≤ 25 ms) ${server.p99 <= 25 ? 'OK' : 'MISSED'}` : ''} (bare ${fmt(bare.p99 ?? 0, 2)} ms)`
    const little =
      server.meanMs !== null && server.meanInFlight !== null
        ? `; ${littlesLaw(server.rate, server.meanMs, server.meanInFlight)}`
        : ''
    console.log(`    round: ${plan.name} ${server.detail}`)
    console.log(`      bare ${bare.detail}`)
    console.log(
      `      ${latency}; sender core ${fmt(server.senderShare * 100)} % / ${fmt(bare.senderShare * 100)} % (server/bare legs), machine ${fmt(server.machineShare * 100)} %${server.machineShare > 0.95 ? ' (saturated: not a quiet run)' : ''}${little}`,
    )
    if (rate !== 'saturation')
      console.log(`      ${plan.name} leg: ${server.senderStalls}; bare leg: ${bare.senderStalls}`)
  }
}

/** CPU time (ms) of each of this process's threads, from /proc (clock ticks of 10 ms), keyed by
 * the thread's name: the main thread parses, verifies and answers every delivery, the commit
 * worker commits, V8's helpers collect garbage. */
export function threadCpuMs(): Record<string, number> {
  const threads: Record<string, number> = {}
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      const name =
        tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const key = threads[name] === undefined ? name : `${name}#${tid}`
      threads[key] = (Number(fields[11]) + Number(fields[12])) * 10
    }
  } catch {
    // Not Linux: no breakdown.
  }
  return threads
}
