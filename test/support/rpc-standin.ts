import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'

/** A scripted JSON-RPC server on loopback, only for what a real anvil cannot show: net_version "1"
 * on 61, given error codes, malformed replies, HTTP 5xx and 429, time-outs, refused batches. */

export interface RpcRequest {
  id: unknown
  method: string
  params: unknown[]
}

export interface StandinReply {
  status?: number
  /** A string is sent as is (malformed replies); anything else as JSON. */
  body?: unknown
  delayMs?: number
}

export type StandinHandler = (body: unknown, path: string) => StandinReply | Promise<StandinReply>

export interface Standin {
  url: string
  /** Every parsed request body, in order (a batch is one array). */
  received: unknown[]
  /** The request paths, in order. */
  paths: string[]
  connections: number
  close(): Promise<void>
}

export function useRpcStandin(): (handler: StandinHandler) => Promise<Standin> {
  const servers: Server[] = []
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map((s) => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r())))),
    )
  })
  return async (handler) => {
    const received: unknown[] = []
    const paths: string[] = []
    const state = { connections: 0 }
    const server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', async () => {
        let body: unknown
        try {
          body = JSON.parse(Buffer.concat(chunks).toString())
        } catch {
          body = null
        }
        received.push(body)
        paths.push(req.url ?? '')
        const reply = await handler(body, req.url ?? '')
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs))
        if (res.destroyed) return
        const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? null)
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' })
        res.end(text)
      })
    })
    server.on('connection', () => state.connections++)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    servers.push(server)
    const { port } = server.address() as AddressInfo
    return {
      url: `http://127.0.0.1:${port}`,
      received,
      paths,
      get connections() {
        return state.connections
      },
      close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
    }
  }
}

type Answer = unknown | { error: { code: number; message: string } }

/** A well-behaved node answering from a table of results; `refuseBatch` answers arrays the way
 * nodes that do not take batches do (a single error object). */
export function jsonRpcNode(
  answers: Record<string, Answer | ((params: unknown[]) => Answer)>,
  options: { refuseBatch?: boolean } = {},
): StandinHandler {
  const one = (call: RpcRequest) => {
    const entry = answers[call.method]
    if (entry === undefined)
      return {
        jsonrpc: '2.0',
        id: call.id,
        error: { code: -32601, message: `the method ${call.method} does not exist/is not available` },
      }
    const answer = typeof entry === 'function' ? (entry as (p: unknown[]) => Answer)(call.params) : entry
    if (answer && typeof answer === 'object' && 'error' in answer)
      return { jsonrpc: '2.0', id: call.id, ...(answer as object) }
    return { jsonrpc: '2.0', id: call.id, result: answer }
  }
  return (body) => {
    if (Array.isArray(body)) {
      if (options.refuseBatch)
        return {
          body: {
            jsonrpc: '2.0',
            id: null,
            error: { code: -32600, message: 'batch requests are not supported' },
          },
        }
      return { body: (body as RpcRequest[]).map(one) }
    }
    return { body: one(body as RpcRequest) }
  }
}

export const hex = (n: number) => `0x${n.toString(16)}`

/** How a controlled chain behaves: answering, down (HTTP 503), rate limited (429), or syncing. */
/** slow: answers like ok, each after 1.2 s (a latency blip). */
export type Behaviour = 'ok' | 'down' | 'rate_limited' | 'syncing' | 'slow'
export const controlPath = '/__control'

/** A node whose behaviour a test changes live through the stand-in's control endpoint
 * (`POST /__control {"behaviour": "down"}`), as an operator's node would change under the poller. */
export function controlledNode(
  answers: Record<string, Answer | ((params: unknown[]) => Answer)>,
  initial: Behaviour = 'ok',
): StandinHandler & { behaviour(): Behaviour } {
  let behaviour: Behaviour = initial
  const healthy = jsonRpcNode(answers)
  const syncing = jsonRpcNode({
    ...answers,
    eth_syncing: { startingBlock: hex(0), currentBlock: hex(1200), highestBlock: hex(5000) },
  })
  const handler = (body: unknown, path: string): StandinReply | Promise<StandinReply> => {
    if (path === controlPath) {
      behaviour = (body as { behaviour: Behaviour }).behaviour
      return { body: { behaviour } }
    }
    if (behaviour === 'down') return { status: 503, body: 'upstream unavailable' }
    if (behaviour === 'rate_limited') return { status: 429, body: { error: 'too many requests' } }
    if (behaviour === 'slow')
      return Promise.resolve(healthy(body, path)).then((reply) => ({ ...reply, delayMs: 1_200 }))
    return behaviour === 'syncing' ? syncing(body, path) : healthy(body, path)
  }
  return Object.assign(handler, { behaviour: () => behaviour })
}

/** Changes a controlled node's behaviour through its control endpoint. */
export async function setBehaviour(standin: Standin, behaviour: Behaviour): Promise<void> {
  const response = await fetch(`${standin.url}${controlPath}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ behaviour }),
  })
  if (!response.ok) throw new Error(`the stand-in's control endpoint answered ${response.status}`)
}

/** Requests that were polls (not control calls). */
export const pollsOf = (standin: Standin) => standin.paths.filter((p) => p !== controlPath).length
