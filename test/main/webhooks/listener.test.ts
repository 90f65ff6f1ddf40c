import { readFileSync } from 'node:fs'
import { createServer, connect } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { waitFor } from '../../support/wait'
import { startBackend } from '../../../src/main/backend'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import { useTempDir } from '../../support/temp'
import { unwrap } from '../../../src/shared/result'
import { countEvents, envelope, post, secretA, secretB, useWebhookBackend } from './helpers'
import type { TestBackend } from './helpers'

const { vectors } = JSON.parse(readFileSync(join(import.meta.dirname, 'signature-vectors.json'), 'utf8')) as {
  vectors: { name: string; secret: string; body: string; signature: string }[]
}

const signed = (body: string, secret = secretA) => ({ 'x-service-signature': signBody(secret, body) })
const rejections = (b: { context: { db: any } }) =>
  b.context.db
    .prepare('SELECT path, status, reason, size, remote FROM webhook_rejections ORDER BY seq')
    .all() as {
    path: string
    status: number
    reason: string
    size: number
    remote: string
  }[]

describe('webhook listener', () => {
  const start = useWebhookBackend()
  const tempDir = useTempDir()
  // One back end for the tests that need only the default configuration (a back end's start, its
  // worker threads and migrations, was most of each test's CPU): each uses its own event ids and
  // reads what changed during it (counts before and after), not the totals.
  const startShared = useWebhookBackend({ per: 'file' })
  let b: TestBackend
  beforeAll(async () => {
    b = await startShared()
  })
  /** The events stored while `act` ran. */
  const storedDuring = async (act: () => Promise<unknown>): Promise<number> => {
    const before = countEvents(b)
    await act()
    return countEvents(b) - before
  }

  it('stores every signature vector, with its raw bytes and the endpoint whose secret matched', async () => {
    const before = countEvents(b)
    for (const v of vectors) {
      const answer = await post(b.webhookUrl, Buffer.from(v.body, 'utf8'), {
        'x-service-signature': v.signature,
      })
      expect(answer.status, v.name).toBe(200)
      const id = (JSON.parse(v.body) as { id: string }).id
      const row = b.context.db.prepare('SELECT body, endpoint FROM events WHERE id = ?').get(id) as {
        body: Buffer
        endpoint: string
      }
      expect(row.endpoint).toBe(v.secret === secretA ? 'wh_alpha' : 'wh_beta')
    }
    // The pretty vector is the same event id as the compact one: a redelivery, not a second row.
    const compact = b.services.webhooks.store.get('evt_01HZX3K9Q2')!
    expect(compact.deliveries).toBe(2)
    expect(compact.body).toBe(vectors[0]!.body)
    expect(compact.fundingLine).toBe('1,000 USD → 998.75 USDC')
    expect(countEvents(b) - before).toBe(3)
  })

  it('answers 200 with {} once committed, and the event is in SQLite when the answer arrives', async () => {
    const body = envelope('evt_committed')
    const answer = await post(b.webhookUrl, body, signed(body))
    expect(answer).toEqual({ status: 200, body: '{}' })
    expect(b.services.webhooks.store.get('evt_committed')?.type).toBe('funding.completed')
  })

  it('answers 401 to a body without a signature and stores nothing', async () => {
    const stored = await storedDuring(async () => {
      expect((await post(b.webhookUrl, envelope('evt_unsigned'))).status).toBe(401)
    })
    expect(stored).toBe(0)
    expect(b.services.webhooks.store.get('evt_unsigned')).toBeNull()
  })

  it('answers 401 to a body signed with another secret', async () => {
    const body = envelope('evt_other')
    const stored = await storedDuring(async () => {
      expect((await post(b.webhookUrl, body, signed(body, 'whsec_someone_else_123'))).status).toBe(401)
    })
    expect(stored).toBe(0)
  })

  it('answers 401 on /webhooks/<endpoint> when the body is signed with a different endpoint secret', async () => {
    const body = envelope('evt_wrong_endpoint')
    expect((await post(`${b.webhookUrl}/wh_alpha`, body, signed(body, secretB))).status).toBe(401)
    expect((await post(`${b.webhookUrl}/wh_unknown`, body, signed(body, secretA))).status).toBe(401)
    expect((await post(`${b.webhookUrl}/wh_beta`, body, signed(body, secretB))).status).toBe(200)
    expect(b.services.webhooks.store.get('evt_wrong_endpoint')?.endpoint).toBe('wh_beta')
  })

  it('answers 401 to a tampered body', async () => {
    const body = envelope('evt_tampered', 'funding.completed', { id: 'fund_1', amount: 1000 })
    const headers = signed(body)
    const stored = await storedDuring(async () => {
      expect((await post(b.webhookUrl, body.replace('1000', '9000'), headers)).status).toBe(401)
    })
    expect(stored).toBe(0)
  })

  it('answers 400 to a correctly signed body that is not JSON or not an envelope', async () => {
    const stored = await storedDuring(async () => {
      for (const body of [
        'not json at all',
        '[]',
        '{"id":"evt_x","type":"a"}',
        '{"id":"evt_x","type":"a","created_at":"t","data":"s"}',
      ]) {
        expect((await post(b.webhookUrl, body, signed(body))).status, body).toBe(400)
      }
    })
    expect(stored).toBe(0)
  })

  it('answers 413 above maxBodyBytes, whether declared or streamed', async () => {
    const b = await start({ config: { listener: { maxBodyBytes: 2048 } } })
    const big = envelope('evt_big', 'report.ready', { pad: 'x'.repeat(4096) })
    expect((await post(b.webhookUrl, big, signed(big))).status).toBe(413)
    const streamed = await new Promise<number>((resolve, reject) => {
      const socket = connect(
        (b.services.webhooks.address().url!.match(/:(\d+)$/) ?? [])[1] as unknown as number,
        '127.0.0.1',
      )
      socket.on('error', reject)
      let text = ''
      socket.on('data', (d) => {
        text += d.toString()
        const m = /^HTTP\/1\.1 (\d+)/.exec(text)
        if (m) resolve(Number(m[1]))
      })
      socket.write('POST /webhooks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n')
      socket.write(`1000\r\n${'y'.repeat(4096)}\r\n`)
    })
    expect(streamed).toBe(413)
    expect(countEvents(b)).toBe(0)
  })

  it('answers 405 to other methods and 404 to other paths', async () => {
    const stored = await storedDuring(async () => {
      expect((await post(b.webhookUrl, '', {}, 'GET')).status).toBe(405)
      expect((await post(b.webhookUrl, '', {}, 'PUT')).status).toBe(405)
      const body = envelope('evt_path')
      expect((await post(b.webhookUrl.replace('/webhooks', '/hooks'), body, signed(body))).status).toBe(404)
      expect((await post(`${b.webhookUrl}/a/b`, body, signed(body))).status).toBe(404)
    })
    expect(stored).toBe(0)
  })

  it('records each rejection with metadata only: no body, no signature', async () => {
    // Earlier tests' rejections are written with a commit too: wait for them, then count from there.
    const earlier = await waitFor(
      () => b.services.webhooks.status().rejected === rejections(b).length && rejections(b).length,
      "the earlier tests' rejections recorded",
    )
    const rejectedBefore = b.services.webhooks.status().rejected
    const body = envelope('evt_secret_payload', 'funding.completed', { note: 'private-text' })
    await post(b.webhookUrl, body, signed(body, 'whsec_wrong_000000'))
    await post(b.webhookUrl, body)
    // Rejections are written with the next commit, without anyone waiting for them.
    await waitFor(() => rejections(b).length === earlier + 2, 'both rejections recorded')
    const logged = rejections(b).slice(earlier)
    expect(logged.map((r) => [r.status, r.reason])).toEqual([
      [401, 'signature does not match'],
      [401, 'missing signature'],
    ])
    expect(logged[0]!.path).toBe('/webhooks')
    expect(logged[0]!.size).toBe(Buffer.byteLength(body))
    expect(logged[0]!.remote).toMatch(/127\.0\.0\.1/)
    expect(JSON.stringify(logged)).not.toContain('private-text')
    // Newest first.
    expect(
      b.services.webhooks
        .status()
        .recentRejections.slice(0, 2)
        .map((r) => r.reason),
    ).toEqual(['missing signature', 'signature does not match'])
    expect(b.services.webhooks.status().rejected - rejectedBefore).toBe(2)
  })

  it('stores concurrent duplicate deliveries once and counts every delivery', async () => {
    const { accepted, duplicates } = b.services.webhooks.status()
    const body = envelope('evt_dup')
    const stored = await storedDuring(async () => {
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => post(b.webhookUrl, body, signed(body))),
      )
      expect(answers.map((a) => a.status)).toEqual(Array(25).fill(200))
    })
    expect(stored).toBe(1)
    expect(b.services.webhooks.store.get('evt_dup')?.deliveries).toBe(25)
    expect(b.services.webhooks.status().accepted - accepted).toBe(1)
    expect(b.services.webhooks.status().duplicates - duplicates).toBe(24)
  })

  it('stores an unknown event type and shows it as unknown', async () => {
    const body = envelope('evt_new_kind', 'wallet.renamed', { id: 'wal_1' })
    expect((await post(b.webhookUrl, body, signed(body))).status).toBe(200)
    const event = b.services.webhooks.store.get('evt_new_kind')!
    expect(event.group).toBe('unknown')
    expect(event.dataId).toBe('wal_1')
  })

  it('answers card.authorization.request with the configured body and records its latency', async () => {
    const b = await start({ config: { listener: { authorizationAnswer: { approved: true } } } })
    const body = envelope('evt_auth', 'card.authorization.request', {})
    const answer = await post(b.webhookUrl, body, signed(body))
    expect(answer).toEqual({ status: 200, body: '{"approved":true}' })
    const latency = b.services.webhooks.status().authorizationLatency
    expect(latency.count).toBe(1)
    expect(latency.maxMs).toBeGreaterThan(0)
  })

  it('cuts off a slow client with 408 while other deliveries go through', async () => {
    const b = await start({ config: { listener: { bodyTimeoutMs: 300 } } })
    const port = Number(new URL(b.webhookUrl).port)
    const slow = new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      let text = ''
      socket.on('data', (d) => (text += d.toString()))
      socket.on('close', () => resolve(text))
      socket.on('error', () => resolve(text))
      socket.write(
        'POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"id":',
      )
    })
    const body = envelope('evt_fast')
    expect((await post(b.webhookUrl, body, signed(body))).status).toBe(200)
    expect(await slow).toMatch(/^HTTP\/1\.1 408/)
    await waitFor(() => rejections(b).length === 1, 'the rejection recorded')
    expect(rejections(b).at(-1)!.reason).toBe('body not received within 300 ms')
  })

  it('drops a client that never finishes its headers', async () => {
    const b = await start({ config: { listener: { headersTimeoutMs: 200 } } })
    const port = Number(new URL(b.webhookUrl).port)
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      let text = ''
      socket.on('data', (d) => (text += d.toString()))
      socket.on('close', () => resolve(text))
      socket.on('error', () => resolve(text))
      socket.write('POST /webhooks HTTP/1.1\r\nHost: x\r\nX-Service-Sig')
    })
    expect(answer).toMatch(/^HTTP\/1\.1 408/)
  })

  it('starts the console without the listener when its port is taken, and says why and what to do', async () => {
    const blocker = createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r))
    const port = (blocker.address() as AddressInfo).port
    try {
      const started = await startBackend({
        dataDir: tempDir(),
        shell: 'serve',
        env: {},
        log: silentLogger,
        listenerPort: port,
        secrets: createMemoryStore({ 'webhook-secret:wh_alpha': secretA }),
      })
      expect(started.ok).toBe(true)
      if (!started.ok) return
      const b = started.value
      try {
        const status = b.services.webhooks.status()
        expect(status).toMatchObject({ listening: false, url: null })
        expect(status.problem).toBe(
          `Port ${port} on 127.0.0.1 is in use (another watchdesk?). Stop it, or set listener.port / --listener-port, then restart watchdesk.`,
        )
        expect(b.services.webhooks.address().url).toBeNull()
        expect(b.services.webhooks.address().problem).toMatchObject({
          inUse: true,
          port,
          message: status.problem,
        })
        // The store still answers; nothing can arrive through a listener that is not there.
        expect(b.services.webhooks.store.list({}, undefined, 10).rows).toEqual([])
        const sent = await b.services.webhooks.sendTest('funding.completed')
        expect(sent.ok).toBe(false)
        if (!sent.ok) expect(sent.error.message).toMatch(/listener is not running: Port \d+ .* in use/)
        expect(countEvents(b)).toBe(0)
      } finally {
        await b.close()
      }
    } finally {
      blocker.close()
    }
  })

  it('once stopped, answers that it no longer listens, when asked for its address or to send a test event', async () => {
    const b = unwrap(
      await startBackend({
        dataDir: tempDir(),
        shell: 'serve',
        env: {},
        log: silentLogger,
        listenerPort: 0,
        secrets: createMemoryStore({ 'webhook-secret:wh_alpha': secretA }),
      }),
    )
    expect(b.services.webhooks.address()).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      problem: null,
    })
    await b.close()
    expect(b.services.webhooks.address()).toEqual({ url: null, problem: null })
    const sent = await b.services.webhooks.sendTest('funding.completed')
    expect(sent.ok || sent.error.message).toBe('The webhook listener is not running: it has stopped.')
  })

  it('pushes committed events in batches, not one message per event', async () => {
    const bodies = Array.from({ length: 40 }, (_, i) => envelope(`evt_push_${i}`))
    const pushedBefore = b.pushes.length
    await Promise.all(bodies.map((body) => post(b.webhookUrl, body, signed(body))))
    const ids = (m: (typeof b.pushes)[number]) =>
      (m.payload as { events: { id: string }[] }).events
        .map((e) => e.id)
        .filter((id) => id.startsWith('evt_push_'))
    const appended = () =>
      b.pushes.slice(pushedBefore).filter((m) => m.topic === 'events.appended' && ids(m).length > 0)
    const pushedIds = () => new Set(appended().flatMap(ids))
    await waitFor(() => pushedIds().size === 40, 'all 40 events pushed')
    expect(pushedIds().size).toBe(40)
    // ~150 ms windows: a handful of messages for 40 concurrent deliveries, never one per event.
    expect(appended().length).toBeLessThan(10)
  })
})
