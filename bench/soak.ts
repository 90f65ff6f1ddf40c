/**
 * npm run bench:soak — issue 29: does anything grow while peers misbehave for a long time?
 * A real `bin/watchdesk relay` (SQLite store) and a real `bin/watchdesk serve`, each in its own
 * process, for SOAK_MINUTES (default 30):
 *  - signed deliveries at SOAK_RATE per second in all (default 200), alternating between the
 *    relay's listener and serve's listener;
 *  - 100 followers on the relay's `/sync/stream` (in a child process of this bench);
 *  - a push subscriber on serve's `/api/push` that never reads a byte;
 *  - every minute: 100 partial bodies on each listener (headers and 200 kB of a 1 MB body, then
 *    nothing), and a config edit on serve (`watchdesk config set alerts.repeatMinutes N`);
 *  - every SOAK_SAMPLE_MS (default 5 s), for each process: RSS, open files (/proc/PID/fd) and the
 *    event-loop delay (p99 and max, from a probe loaded with --import).
 * Prints each series' slope per minute over the run after its first minute (least squares), and
 * whether any acknowledged delivery is missing from the store it was acknowledged by, or from
 * any follower. Not in CI: it runs for half an hour.
 */
import { execFile, fork, spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import BetterSqlite3 from 'better-sqlite3'
import { signBody } from '../src/main/webhooks'

const self = fileURLToPath(import.meta.url)
const bin = join(self, '..', '..', '..', 'bin', 'watchdesk')
const secret = 'whsec_bench_soak_5d0c7e21f9'
const minutes = Number(process.env.SOAK_MINUTES ?? 30)
const rate = Number(process.env.SOAK_RATE ?? 200)
const sampleMs = Number(process.env.SOAK_SAMPLE_MS ?? 5_000)
const followerCount = Number(process.env.SOAK_FOLLOWERS ?? 100)

/** Loaded into each watchdesk process with --import: its event-loop delay, written to a file. */
const probeSource = `
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'
import { renameSync, writeFileSync } from 'node:fs'
const file = process.env.SOAK_PROBE_FILE
if (isMainThread && file) {
  const h = monitorEventLoopDelay({ resolution: 10 })
  h.enable()
  setInterval(() => {
    // Renamed into place: the bench never reads half a file.
    writeFileSync(file + '.tmp', JSON.stringify({ p99: h.percentile(99) / 1e6, max: h.max / 1e6 }))
    renameSync(file + '.tmp', file)
    h.reset()
  }, ${sampleMs}).unref()
}
`

interface Watched {
  name: string
  child: ChildProcess
  probeFile: string
  samples: { atMin: number; rssMb: number; fds: number; loopP99: number; loopMax: number }[]
}

// ── child: the followers ─────────────────────────────────────────────────────────────────────
function followersChild(syncUrl: string, token: string, count: number): void {
  const received = new Array<number>(count).fill(0)
  const failures: string[] = []
  for (let i = 0; i < count; i++) {
    const req = request(`${syncUrl}/sync/stream?after=0`, { headers: { authorization: `Bearer ${token}` } })
    req.on('response', (res) => {
      if (res.statusCode !== 200) failures.push(`follower ${i}: HTTP ${res.statusCode}`)
      let pending = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        pending += chunk
        let end: number
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const frame = pending.slice(0, end)
          pending = pending.slice(end + 2)
          if (!/^event: events$/m.test(frame)) continue
          const data = /^data: (.*)$/m.exec(frame)?.[1]
          if (data) received[i]! += (JSON.parse(data) as { events: unknown[] }).events.length
        }
      })
      res.on('end', () => failures.push(`follower ${i}: stream ended`))
    })
    req.on('error', (error) => failures.push(`follower ${i}: ${error.message}`))
    req.end()
  }
  process.on('message', () => process.send!({ received, failures }))
  process.send!({ ready: true })
}

// ── parent ───────────────────────────────────────────────────────────────────────────────────
function startWatchdesk(name: string, args: string[], env: NodeJS.ProcessEnv, dir: string): Watched {
  const probe = join(dir, 'probe.mjs')
  writeFileSync(probe, probeSource)
  const probeFile = join(dir, `${name}.loop.json`)
  const child = spawn(process.execPath, ['--import', pathToFileURL(probe).href, bin, ...args], {
    env: { ...process.env, WATCHDESK_LOG_LEVEL: 'warn', SOAK_PROBE_FILE: probeFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return { name, child, probeFile, samples: [] }
}

function output(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let text = ''
    const onData = (d: Buffer) => {
      text += d.toString()
      const m = pattern.exec(text)
      if (m) resolve(m)
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${text}`)))
  })
}

function sample(w: Watched, startedAt: number): void {
  const pid = w.child.pid!
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const rssMb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)![1]) / 1024
    const fds = readdirSync(`/proc/${pid}/fd`).length
    let loop = { p99: Number.NaN, max: Number.NaN }
    try {
      loop = JSON.parse(readFileSync(w.probeFile, 'utf8')) as typeof loop
    } catch {
      // not written yet
    }
    w.samples.push({
      atMin: (Date.now() - startedAt) / 60_000,
      rssMb,
      fds,
      loopP99: loop.p99,
      loopMax: loop.max,
    })
  } catch {
    // the process is gone: the report says so
  }
}

/** The largest finite value (NaN when there is none). */
const worst = (values: number[]): number => {
  const finite = values.filter(Number.isFinite)
  return finite.length ? Math.max(...finite) : Number.NaN
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  const usable = points.filter(([, y]) => Number.isFinite(y))
  const n = usable.length
  if (n < 2) return Number.NaN
  const mx = usable.reduce((s, [x]) => s + x, 0) / n
  const my = usable.reduce((s, [, y]) => s + y, 0) / n
  const sxy = usable.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0)
  const sxx = usable.reduce((s, [x]) => s + (x - mx) ** 2, 0)
  return sxx === 0 ? Number.NaN : sxy / sxx
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 })

function post(url: string, body: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      `${url}`,
      {
        method: 'POST',
        agent,
        timeout: 15_000,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-service-signature': signBody(secret, body),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
      },
    )
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(0))
    req.end(body)
  })
}

/** 100 senders that send headers and 200 kB of a 1 MB body, then nothing; closed after a minute. */
function partialBodies(webhookUrl: string, count: number, answered: { n: number }): void {
  const { hostname, port } = new URL(webhookUrl)
  const part = Buffer.alloc(200_000, 0x61)
  for (let i = 0; i < count; i++) {
    const s: Socket = connect(Number(port), hostname)
    s.on('error', () => {})
    s.once('data', () => answered.n++)
    s.write(
      `POST /webhooks HTTP/1.1\r\nHost: ${hostname}\r\ncontent-type: application/json\r\n` +
        `x-service-signature: t=1,v1=00\r\ncontent-length: 1000000\r\n\r\n`,
    )
    s.write(part)
    setTimeout(() => s.destroy(), 60_000).unref()
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'watchdesk-soak-'))
  const relayDir = join(dir, 'relay')
  const serveDir = join(dir, 'serve')
  const env = { WATCHDESK_WEBHOOK_SECRETS: secret }
  const children: ChildProcess[] = []
  mkdirSync(relayDir)
  mkdirSync(serveDir)
  // One token for all the followers: its stream limit raised to let them in.
  writeFileSync(
    join(relayDir, 'config.json'),
    JSON.stringify({ sync: { maxStreams: { perToken: followerCount + 16, perRelay: followerCount + 64 } } }),
  )
  try {
    const store = `sqlite:${join(dir, 'relay.db')}`
    const token = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, [bin, 'relay', 'token', 'create', 'soak', '--store', store], (error, out) =>
        error ? reject(error) : resolve(out.trim()),
      ),
    )
    const relay = startWatchdesk(
      'relay',
      ['relay', '--store', store, '--listener-port', '0', '--port', '0'],
      { ...env, WATCHDESK_DATA_DIR: relayDir },
      dir,
    )
    children.push(relay.child)
    const relayUrls = await output(relay.child, /webhooks: (\S+)\n[^]*sync: +(\S+?)\/sync\//, 'the relay')
    const serve = startWatchdesk(
      'serve',
      ['serve', '--data-dir', serveDir, '--port', '0', '--listener-port', '0'],
      { ...env, WATCHDESK_TOKEN: 'soak-console-token' },
      dir,
    )
    children.push(serve.child)
    const serveUrls = await output(
      serve.child,
      /console:\s+(http:\/\/127\.0\.0\.1:\d+)\/[^]*webhooks:\s+(http:\/\/\S+?\/webhooks)/,
      'serve',
    )
    const consoleUrl = serveUrls[1]!
    const serveHooks = serveUrls[2]!
    const targets = { relay: relayUrls[1]!, serve: serveHooks }
    const syncUrl = relayUrls[2]!

    const followers = fork(self, ['followers', syncUrl, token, String(followerCount)], { stdio: 'inherit' })
    children.push(followers)
    await new Promise((r) => followers.once('message', r))

    // The push subscriber that never reads.
    const { port: consolePort } = new URL(consoleUrl)
    const stalled = connect(Number(consolePort), '127.0.0.1')
    stalled.on('error', () => {})
    stalled.pause()
    stalled.write(
      `GET /api/push HTTP/1.1\r\nHost: 127.0.0.1:${consolePort}\r\nAuthorization: Bearer soak-console-token\r\n\r\n`,
    )

    const acknowledged = { relay: [] as string[], serve: [] as string[] }
    /** Answers other than 200 by status (0: no answer within 15 s). */
    const notAcknowledged = new Map<number, number>()
    let n = 0
    const startedAt = Date.now()
    const endAt = startedAt + minutes * 60_000
    const partialAnswered = { n: 0 }
    let edits = 0
    let editFailures = 0
    const sampler = setInterval(() => {
      for (const w of [relay, serve]) sample(w, startedAt)
    }, sampleMs)
    const everyMinute = () => {
      partialBodies(targets.relay, 100, partialAnswered)
      partialBodies(targets.serve, 100, partialAnswered)
      execFile(
        process.execPath,
        [bin, 'config', 'set', 'alerts.repeatMinutes', String(30 + (edits % 30)), '--data-dir', serveDir],
        (error) => (error ? editFailures++ : edits++),
      )
    }
    everyMinute()
    const minutely = setInterval(everyMinute, 60_000)
    // Paced: every 50 ms the deliveries due by then.
    let sent = 0
    const inFlight = new Set<Promise<void>>()
    await new Promise<void>((resolveRun) => {
      const pace = setInterval(() => {
        if (Date.now() >= endAt) {
          clearInterval(pace)
          return resolveRun()
        }
        const due = Math.floor(((Date.now() - startedAt) / 1000) * rate)
        for (; sent < due; sent++) {
          const to = sent % 2 === 0 ? 'relay' : 'serve'
          const id = `evt_soak_${to}_${n++}`
          const body = JSON.stringify({
            id,
            type: 'funding.completed',
            created_at: new Date().toISOString(),
            data: { id: `fund_${id}`, amount: '10.00', currency: 'USD' },
          })
          const p = post(targets[to], body).then((status) => {
            if (status === 200) acknowledged[to].push(id)
            else notAcknowledged.set(status, (notAcknowledged.get(status) ?? 0) + 1)
            inFlight.delete(p)
          })
          inFlight.add(p)
        }
      }, 50)
    })
    clearInterval(minutely)
    await Promise.all(inFlight)
    for (const w of [relay, serve]) sample(w, startedAt)
    clearInterval(sampler)

    // Followers: every acknowledged relay delivery reached each of them (given a moment to arrive).
    const ask = () =>
      new Promise<{ received: number[]; failures: string[] }>((resolve) => {
        followers.once('message', (m) => resolve(m as { received: number[]; failures: string[] }))
        followers.send('ask')
      })
    let follow = await ask()
    for (let i = 0; i < 60 && Math.min(...follow.received) < acknowledged.relay.length; i++) {
      await new Promise((r) => setTimeout(r, 1_000))
      follow = await ask()
    }
    stalled.destroy()
    for (const c of children) c.kill('SIGTERM')
    await Promise.all(
      children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.once('exit', r)))),
    )

    const missing = (file: string, ids: string[]) => {
      const db = new BetterSqlite3(file, { readonly: true })
      const has = db.prepare('SELECT 1 FROM events WHERE id = ?')
      const lost = ids.filter((id) => !has.get(id)).length
      db.close()
      return lost
    }
    const lost = {
      relay: missing(join(dir, 'relay.db'), acknowledged.relay),
      serve: missing(join(serveDir, 'watchdesk.db'), acknowledged.serve),
    }

    console.log(
      `soak: ${minutes} min, ${rate} deliveries/s in all (relay + serve), ${followerCount} followers, a stalled push subscriber, partial bodies and a config edit every minute`,
    )
    console.log(
      `deliveries: ${acknowledged.relay.length + acknowledged.serve.length} acknowledged (relay ${acknowledged.relay.length}, serve ${acknowledged.serve.length}), not: ${[...notAcknowledged].map(([status, count]) => `${count} × ${status === 0 ? 'no answer in 15 s' : status}`).join(', ') || 'none'}; config edits ${edits} (${editFailures} failed); partial bodies answered ${partialAnswered.n}`,
    )
    for (const w of [relay, serve]) {
      const after = w.samples.filter((s) => s.atMin >= 1)
      const series = (pick: (s: Watched['samples'][number]) => number) =>
        after.map((s) => [s.atMin, pick(s)] as [number, number])
      const first = after[0]
      const last = after.at(-1)
      const fmt = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a')
      console.log(
        `${w.name}: RSS ${fmt(first?.rssMb ?? NaN, 0)} → ${fmt(last?.rssMb ?? NaN, 0)} MB (slope ${fmt(slope(series((s) => s.rssMb)))} MB/min); ` +
          `open files ${first?.fds ?? 'n/a'} → ${last?.fds ?? 'n/a'} (slope ${fmt(slope(series((s) => s.fds)))} /min); ` +
          `event-loop delay p99 ${fmt(worst(after.map((s) => s.loopP99)), 1)} ms at worst (slope ${fmt(slope(series((s) => s.loopP99)), 3)} ms/min), max ${fmt(worst(after.map((s) => s.loopMax)), 0)} ms`,
      )
    }
    for (const w of [relay, serve]) {
      const byMinute = Array.from({ length: Math.ceil(minutes) + 1 }, (_, m) =>
        w.samples.find((x) => x.atMin >= m),
      )
      console.log(
        `${w.name} RSS by minute: ${byMinute.map((x) => (x ? x.rssMb.toFixed(0) : '-')).join(' ')} MB; open files: ${byMinute.map((x) => x?.fds ?? '-').join(' ')}`,
      )
    }
    const minFollower = Math.min(...follow.received)
    console.log(
      `followers: each received ${minFollower === Math.max(...follow.received) ? minFollower : `${minFollower}–${Math.max(...follow.received)}`} events of ${acknowledged.relay.length} acknowledged by the relay${follow.failures.length ? `; ${follow.failures.length} problems: ${follow.failures.slice(0, 3).join('; ')}` : ''}`,
    )
    console.log(
      `acknowledged and lost: relay ${lost.relay}, serve ${lost.serve}${lost.relay + lost.serve === 0 && minFollower >= acknowledged.relay.length ? ' — nothing acknowledged was lost' : ''}`,
    )
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[2] === 'followers')
  followersChild(process.argv[3]!, process.argv[4]!, Number(process.argv[5]))
else
  void main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
