import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { spawnRelay } from '../../support/relay-process'
import { deliver, relaySecret } from './helpers'

/** Opens `count` sockets to host:port, sends half a request line on each and then a header byte
 * now and then (a slowloris), never reconnecting; prints `opened N closed M` as it goes. Its own
 * process, so its file descriptors are not the test's. */
const slowloris = `
const net = require('node:net')
const [host, port, count] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3])]
let opened = 0, closed = 0, failed = 0, started = 0
const sockets = new Set()
const report = () => process.stdout.write('opened ' + opened + ' closed ' + closed + ' failed ' + failed + ' started ' + started + '\\n')
function open() {
  started++
  const s = net.connect(port, host)
  s.on('connect', () => { opened++; s.write('GET /sync/events HTTP/1.1\\r\\nHost: x\\r\\n') })
  s.on('error', () => { failed++ })
  s.on('close', () => { closed++; sockets.delete(s) })
  sockets.add(s)
}
const drip = setInterval(() => { for (const s of sockets) if (!s.destroyed) s.write('X: y\\r\\n') }, 2000)
let i = 0
const batch = () => {
  for (let n = 0; n < 250 && i < count; n++, i++) open()
  report()
  if (i < count) setTimeout(batch, 5)
}
batch()
setInterval(report, 500)
`

describe('the sync port under a slowloris', () => {
  const tempDir = useTempDir('watchdesk-slowloris-')
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  })

  // The relay may open 2,048 files, and 4,000 sockets come: held, they would leave it no
  // descriptor for a webhook connection or its database (what 20,000 sockets did against the
  // machine's limit of 20,000, at seven times the CPU). Not much less than 2,048: the sockets over
  // the cap (1,024) each take a descriptor until they are closed, and a quiet machine's attackers
  // open hundreds at once (with 1,280 a clean run saw three webhook connections dropped).
  const openFiles = 2_048
  const sockets = 4_000

  it('keeps answering webhooks while more idle and trickling sockets hit the sync port than it may open files (a cap and time-outs close them)', async () => {
    const relay = await spawnRelay(
      `sqlite:${join(tempDir(), 'relay.db')}`,
      { WATCHDESK_WEBHOOK_SECRETS: relaySecret },
      { openFiles },
    ).ready
    children.push(relay.child)
    expect(readFileSync(`/proc/${relay.child.pid}/limits`, 'utf8')).toMatch(
      new RegExp(`^Max open files +${openFiles} +${openFiles} `, 'm'),
    )
    const syncPort = new URL(relay.sync).port
    // Two attackers, as from two processes.
    const attackers = [0, 1].map(() => {
      const child = spawn(process.execPath, ['-e', slowloris, '127.0.0.1', syncPort, String(sockets / 2)], {
        stdio: ['ignore', 'pipe', 'ignore'],
      })
      children.push(child)
      let last = { opened: 0, closed: 0, failed: 0, started: 0 }
      child.stdout!.on('data', (d: Buffer) => {
        const m = [...d.toString().matchAll(/opened (\d+) closed (\d+) failed (\d+) started (\d+)/g)].at(-1)
        if (m) last = { opened: +m[1]!, closed: +m[2]!, failed: +m[3]!, started: +m[4]! }
      })
      return () => last
    })
    const totals = () =>
      attackers.reduce(
        (t, a) => ({
          opened: t.opened + a().opened,
          started: t.started + a().started,
          closed: t.closed + a().closed,
        }),
        { opened: 0, started: 0, closed: 0 },
      )
    // Deliveries while the sockets open and trickle, each on a connection of its own (as from
    // a sender the relay has not heard from yet): accepting it needs a free descriptor.
    const statuses: number[] = []
    let n = 0
    const webhooks = relay.webhooks
    const post = () => deliver(webhooks, `evt_loris_${n++}`, undefined, { newConnection: true })
    await waitFor(
      async () => {
        statuses.push(await post())
        return totals().started >= sockets || undefined
      },
      `the attackers to start ${sockets} sockets`,
      { timeoutMs: 120_000, intervalMs: 10 },
    )
    // And once all of them are out there.
    for (let i = 0; i < 50; i++) statuses.push(await post())
    expect(statuses.filter((s) => s !== 200)).toEqual([])
    // More sockets reached the relay than its cap (the attackers report every 500 ms, so a loaded
    // machine's count can lag the deliveries).
    await waitFor(() => totals().opened > 1_024 || undefined, 'over 1,024 attacking sockets opened', {
      timeoutMs: 60_000,
      intervalMs: 100,
    })
    // The relay held at most its cap: the rest were closed at once, the held ones after the
    // header time-out (5 s), however slowly they trickle.
    await waitFor(
      () => totals().closed >= sockets || undefined,
      'every attacking socket closed by the relay',
      {
        timeoutMs: 60_000,
        intervalMs: 200,
      },
    )
    expect(relay.child.exitCode).toBeNull()
    // The sync port serves again once the attack is over.
    expect((await fetch(`${relay.sync}/healthz`)).status).toBe(200)
  }, 180_000)
})
