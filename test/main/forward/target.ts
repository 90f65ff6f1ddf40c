import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingHttpHeaders, Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'

export interface Received {
  headers: IncomingHttpHeaders
  body: Buffer
  id: string | null
}

export type Answer = {
  status: number
  body?: string
  delayMs?: number
  contentType?: string
  /** Answers only once this settles (after delayMs, if both): holds attempts in flight for as long
   * as a test needs, whatever the machine's load. */
  heldUntil?: Promise<void>
}

export interface TestTarget {
  url: string
  received: Received[]
  /** Event ids received at least once with a 2xx answered. */
  acknowledged: Set<string>
  /** How to answer the next request (default 200 `{"ok":true}`). */
  answer: (r: Received) => Answer
  close(): Promise<void>
}

/** A real HTTP app on loopback that records what it is sent; closed after each test. */
export function useTestTargets(): (answer?: TestTarget['answer']) => Promise<TestTarget> {
  const servers: Server[] = []
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve())
            s.closeAllConnections()
          }),
      ),
    )
  })
  return async (answer = () => ({ status: 200, body: '{"ok":true}' })) => {
    const target: TestTarget = {
      url: '',
      received: [],
      acknowledged: new Set(),
      answer,
      close: async () => {},
    }
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body = Buffer.concat(chunks)
        const header = req.headers['x-watchdesk-event-id']
        const r: Received = { headers: req.headers, body, id: typeof header === 'string' ? header : null }
        target.received.push(r)
        const a = target.answer(r)
        const reply = () => {
          if (res.destroyed) return
          res.writeHead(a.status, { 'content-type': a.contentType ?? 'application/json' })
          res.end(a.body ?? '')
          if (a.status >= 200 && a.status < 300 && r.id) target.acknowledged.add(r.id)
        }
        const answer = () => (a.delayMs ? setTimeout(reply, a.delayMs) : reply())
        if (a.heldUntil) void a.heldUntil.then(answer)
        else answer()
      })
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    target.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    target.close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    return target
  }
}

export function signatureValid(r: Received, secret: string): boolean {
  const header = r.headers['x-service-signature']
  if (typeof header !== 'string' || !/^[0-9a-f]{64}$/.test(header)) return false
  const expected = createHmac('sha256', secret).update(r.body).digest()
  return timingSafeEqual(expected, Buffer.from(header, 'hex'))
}
