import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRelayProcesses } from '../../support/relay-process'
import { runMain } from '../../support/cli'
import { relaySecret } from './helpers'

/** Holds `count` sockets to host:port from `from` (another loopback address: a peer that is not
 * the console), each sending half a request and a header line now and then; every socket the relay
 * closes is opened again at once. Prints `opened N closed M refused R` as it goes. Its own process,
 * so its file descriptors are not the test's. */
const holder = `
const net = require('node:net')
const [host, port, count, from] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3]), process.argv[4]]
let opened = 0, closed = 0, refused = 0, stopping = false
const sockets = new Set()
function open() {
  if (stopping) return
  const s = net.connect({ port, host, localAddress: from })
  s.on('connect', () => { opened++; s.write('GET /sync/events HTTP/1.1\\r\\nHost: x\\r\\n') })
  s.on('data', (d) => { if (d.toString().startsWith('HTTP/1.1 503')) refused++ })
  s.on('error', () => {})
  s.on('close', () => { closed++; sockets.delete(s); setImmediate(open) })
  sockets.add(s)
}
for (let i = 0; i < count; i++) open()
setInterval(() => { for (const s of sockets) if (!s.destroyed && s.writable) s.write('X: y\\r\\n') }, 1000)
setInterval(() => process.stdout.write('opened ' + opened + ' closed ' + closed + ' refused ' + refused + ' held ' + sockets.size + '\\n'), 250)
`

/** GET with a fresh connection each time (no agent pooling), 10 s at most: the status, 0 if none. */
function getOnce(url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, agent: false, timeout: 10_000 })
    req.on('response', (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(0))
    req.end()
  })
}

describe('the sync port serves token holders first', () => {
  const tempDir = useTempDir('watchdesk-token-first-')
  const relays = useRelayProcesses()
  const children: ChildProcess[] = []
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  })

  it('answers 20 of 20 authorised sync requests while another address holds 2,000 unauthenticated sockets, re-opened as closed', async () => {
    const dataDir = tempDir()
    const store = `sqlite:${join(dataDir, 'relay.db')}`
    // The token through the command's main() in this process: the relay below is the process.
    const created = await runMain(['relay', 'token', 'create', 'console', '--store', store])
    expect(created.code).toBe(0)
    const token = created.stdout.trim()
    const relay = await relays(store, { WATCHDESK_DATA_DIR: dataDir, WATCHDESK_WEBHOOK_SECRETS: relaySecret })
      .ready
    const port = new URL(relay.sync).port
    // 2,000 sockets and the relay's ones fit in one process's default limit of open files.
    const attacker = spawn(process.execPath, ['-e', holder, '127.0.0.1', port, '2000', '127.0.0.2'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    children.push(attacker)
    let last = { opened: 0, closed: 0, refused: 0 }
    attacker.stdout!.on('data', (d: Buffer) => {
      const m = [...d.toString().matchAll(/opened (\d+) closed (\d+) refused (\d+)/g)].at(-1)
      if (m) last = { opened: +m[1]!, closed: +m[2]!, refused: +m[3]! }
    })
    // The attack is under way: all 2,000 opened once.
    await waitFor(() => last.opened >= 2_000, 'the 2,000 sockets to be opened', {
      timeoutMs: 60_000,
      intervalMs: 100,
    })

    const statuses: number[] = []
    for (let i = 0; i < 20; i++) statuses.push(await getOnce(`${relay.sync}/sync/events?after=0`, token))
    expect(statuses).toEqual(Array<number>(20).fill(200))
    // Still attacking throughout: the relay kept closing and refusing the unauthenticated sockets.
    const during = last.closed
    await waitFor(() => last.closed > during || undefined, 'the attack to go on', { timeoutMs: 20_000 })
    // A socket from the attacking address is told why and when to come back (one may find a place
    // freed a moment ago: asked again then).
    const ask = () =>
      new Promise<string>((resolve) => {
        const req = request(`${relay.sync}/healthz`, { agent: false, localAddress: '127.0.0.2' })
        req.on('response', (res) => {
          let text = ''
          res.on('data', (c: Buffer) => (text += c.toString()))
          res.on('end', () => resolve(`${res.statusCode} ${res.headers['retry-after'] ?? '-'} ${text}`))
        })
        req.on('error', (e) => resolve(`error ${e.message}`))
        req.end()
      })
    const refusal = await waitFor(async () => {
      const answer = await ask()
      return answer.startsWith('503') ? answer : undefined
    }, 'a 503 for the attacking address')
    expect(refusal).toMatch(/^503 \d+ .*sync\.unauthenticated\.perAddress/)
    expect(relay.child.exitCode).toBeNull()
  }, 120_000)
})
