import { Agent, createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { createDispatcher, enqueueOnCommit, openForwardStore } from '../../../src/main/forward'
import { deliver, responseKeptBytes } from '../../../src/main/forward/deliver'
import { resolveTargets } from '../../../src/main/forward/targets'
import { silentLogger } from '../../../src/main/log'
import { parseEnvelope } from '../../../src/main/webhooks'
import { inThreadCommitter } from '../../../src/main/webhooks/committer'
import { eventParams } from '../../../src/main/webhooks/store'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { envelope } from '../webhooks/helpers'
import { useTestTargets } from './target'
import type { Answer } from './target'

const t0 = Date.parse('2026-11-20T10:00:00Z')

/** 100 committed events queued for one target `app`, and a dispatcher on a manual clock. */
async function queuedFor(dir: string, url: string) {
  const clock = manualClock(t0)
  const db = unwrap(openDatabase(join(dir, 'watchdesk.db')))
  const store = openForwardStore(db.name)
  const targets = resolveTargets(
    { targets: { app: { url } }, authorizationBudgetMs: 1500, probeSeconds: 10, maxAgeHours: 24 },
    [],
    new Map(),
  )
  store.syncRoutes(targets)
  const ids = Array.from({ length: 100 }, (_, i) => `evt_ans_${i}`)
  const committed = await inThreadCommitter(db, [enqueueOnCommit]).commit(
    ids.map((id) => {
      const body = Buffer.from(envelope(id))
      return eventParams({ envelope: unwrap(parseEnvelope(body)), body, endpoint: 'wh_alpha', at: t0 })
    }),
    [],
  )
  expect(committed.ok).toBe(true)
  const dispatcher = createDispatcher({
    store,
    clock,
    log: silentLogger,
    owner: 'test',
    maxAgeMs: () => 24 * 3_600_000,
    originalSignature: () => null,
  })
  dispatcher.setTargets(targets, { authorizer: null, probeMs: 10_000 })
  /** Moves time a second at a time for `ms`, each step once nothing is under way. */
  const run = async (ms: number) => {
    for (let i = 0; i < ms / 1000; i++) {
      clock.advance(1000)
      await waitFor(() => dispatcher.busy() === 0, 'the attempts under way to finish')
    }
  }
  const close = async () => {
    await dispatcher.stop()
    store.close()
    db.close()
  }
  return { dispatcher, store, run, close, ids }
}

describe('a target that answers, but not 2xx', () => {
  const tempDir = useTempDir('watchdesk-answers-')
  const startTarget = useTestTargets()

  it.each([
    [302, { status: 302, body: '' }],
    [400, { status: 400, body: '{"error":"bad"}' }],
  ] as [number, Answer][])(
    'answering %i pauses like a failing target: a first round and probes, not every event on its schedule',
    async (_status, answer) => {
      const target = await startTarget(() => answer)
      const q = await queuedFor(tempDir(), target.url)
      await q.run(60_000)
      // One first round (8 at once, a few more before the failures add up), then one probe after
      // 1 s, 5 s, and then every 10 s: about 13 requests in a minute. Before, each of the 100
      // events was retried on its own schedule (1 s, 5 s, 30 s: 300+ requests).
      expect(target.received.length).toBeGreaterThanOrEqual(8 + 6)
      expect(target.received.length).toBeLessThanOrEqual(10 + 8)
      expect(q.dispatcher.status()[0]).toMatchObject({ health: 'failing', pending: 100 })
      await q.close()
    },
    60_000,
  )

  it('answering 410 Gone stops the target: nothing more is sent, the state says why, the queue is kept', async () => {
    const target = await startTarget(() => ({ status: 410, body: 'gone' }))
    const q = await queuedFor(tempDir(), target.url)
    await q.run(2000)
    const sent = target.received.length
    expect(sent).toBeGreaterThanOrEqual(1)
    expect(sent).toBeLessThanOrEqual(8 + 2)
    await q.run(60_000)
    expect(target.received.length).toBe(sent)
    const status = q.dispatcher.status()[0]!
    expect(status).toMatchObject({ health: 'stopped', pending: 100 })
    expect(status.lastError).toMatch(/answered 410 Gone.*Forwarding to app stopped.*Fix the URL/)
    await q.close()
  }, 60_000)
})

describe('a long answer', () => {
  const servers: Server[] = []
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections()
      await new Promise((resolve) => s.close(resolve))
    }
  })

  it('is not read past the 2 KB kept: the 50 MB the target sends stop at what the sockets buffer', async () => {
    const total = 50 * 1024 * 1024
    let accepted = -1
    const closed = new Promise<void>((resolve) => {
      const server = createServer((req, res) => {
        req.resume()
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(total) })
          const chunk = Buffer.alloc(64 * 1024, 'x')
          let written = 0
          // Written as fast as the client reads (back-pressure), until it closes the connection.
          const pump = () => {
            while (written < total && !res.destroyed) {
              written += chunk.length
              if (!res.write(chunk)) return void res.once('drain', pump)
            }
          }
          res.socket!.on('close', () => {
            accepted = res.socket!.bytesWritten
            resolve()
          })
          pump()
        })
      })
      servers.push(server)
      server.listen(0, '127.0.0.1')
    })
    await waitFor(() => servers[0]!.address() ?? undefined, 'the target to listen')
    const port = (servers[0]!.address() as AddressInfo).port
    // The forwarder's own socket, to count what it read from the kernel.
    const sockets: Socket[] = []
    const agent = new Agent({ keepAlive: true })
    agent.on('free', (socket: Socket) => sockets.push(socket))
    const created = agent.createConnection.bind(agent)
    agent.createConnection = ((...args: Parameters<typeof created>) => {
      const socket = created(...args) as Socket
      sockets.push(socket)
      return socket
    }) as typeof agent.createConnection
    const outcome = await deliver({
      agent,
      url: `http://127.0.0.1:${port}/hook`,
      body: Buffer.from('{}'),
      headers: { 'content-type': 'application/json' },
      timeoutMs: 10_000,
      keepBytes: responseKeptBytes,
    })
    expect(outcome.status).toBe(200)
    expect(outcome.response.length).toBe(responseKeptBytes)
    await closed
    // What the target could hand to the kernel before the forwarder closed: its and the
    // forwarder's socket buffers on loopback (a few MB at most), never the 50 MB.
    const read = sockets[0]!.bytesRead
    console.info(
      `a 50 MB answer: the forwarder read ${read} bytes; ${accepted} bytes left the target before it closed`,
    )
    // Node reads the socket in chunks of up to 64 KB: one or two of them, headers included.
    expect(read).toBeLessThan(256 * 1024)
    expect(accepted).toBeGreaterThan(0)
    expect(accepted).toBeLessThan(8 * 1024 * 1024)
    agent.destroy()
  }, 30_000)
})
