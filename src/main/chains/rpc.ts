import http from 'node:http'
import https from 'node:https'
import type { RpcErrorInfo } from '../../shared/contract/chains'

/** A small JSON-RPC 2.0 client for one endpoint: HTTP keep-alive, a time-out per request, and a
 * batch that falls back to single calls once the node refuses batches. */

export interface RpcCall {
  method: string
  params: unknown[]
}

export type RpcOutcome = { ok: true; result: unknown } | { ok: false; error: RpcErrorInfo }

export interface RawExchange {
  request: string
  response: string | null
  httpStatus: number | null
  elapsedMs: number
  outcome: RpcOutcome
}

export interface BatchResult {
  outcomes: RpcOutcome[]
  /** Round trip of the batch, or of the slowest single call after a fallback. */
  latencyMs: number
}

export interface RpcClient {
  call(call: RpcCall): Promise<RawExchange>
  batch(calls: RpcCall[]): Promise<BatchResult>
  /** 'unknown' until the first batch; 'refused' once the node refused one (then single calls). */
  batchSupport(): 'yes' | 'refused' | 'unknown'
  close(): void
}

export interface RpcClientOptions {
  url: string
  timeoutMs: number
  /** Removes secrets (the project uid) from anything the node echoes back. */
  scrub?: (text: string) => string
  maxResponseBytes?: number
  /** Sent with every request (a reference's API key header, for instance). */
  headers?: Record<string, string>
}

interface HttpReply {
  status: number
  text: string
}

const excerpt = (text: string, max = 160) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  const url = new URL(options.url)
  const isHttps = url.protocol === 'https:'
  const agent = isHttps
    ? new https.Agent({ keepAlive: true, maxSockets: 4 })
    : new http.Agent({ keepAlive: true, maxSockets: 4 })
  const scrub = options.scrub ?? ((t: string) => t)
  const maxBytes = options.maxResponseBytes ?? 1024 * 1024
  // Built once: a URL object given to every request would be converted each time.
  const requestOptions = {
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port || (isHttps ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    agent,
    ...(url.username
      ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
      : {}),
  }
  const baseHeaders = {
    ...options.headers,
    'content-type': 'application/json',
    accept: 'application/json',
  }
  let nextId = 1
  let batching: 'yes' | 'refused' | 'unknown' = 'unknown'
  const pending = new Set<http.ClientRequest>()

  function post(body: string): Promise<HttpReply | RpcErrorInfo> {
    return new Promise((resolve) => {
      let settled = false
      const done = (value: HttpReply | RpcErrorInfo) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        pending.delete(req)
        resolve(value)
      }
      const req = (isHttps ? https : http).request(
        { ...requestOptions, headers: { ...baseHeaders, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          let text = ''
          let size = 0
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            size += chunk.length
            if (size > maxBytes) {
              req.destroy()
              done({
                kind: 'malformed',
                code: null,
                message: `The node's answer is larger than ${maxBytes} bytes.`,
              })
              return
            }
            text += chunk
          })
          res.on('end', () => done({ status: res.statusCode ?? 0, text }))
          res.on('error', (error) => done(networkError(error)))
        },
      )
      const timer = setTimeout(() => {
        req.destroy()
        done({ kind: 'timeout', code: null, message: `No answer within ${options.timeoutMs} ms.` })
      }, options.timeoutMs)
      pending.add(req)
      req.on('error', (error) => done(networkError(error)))
      req.end(body)
    })
  }

  function httpFailure(reply: HttpReply): RpcErrorInfo {
    const body = reply.text ? `: ${scrub(excerpt(reply.text, 120))}` : ''
    if (reply.status === 429) {
      return {
        kind: 'http',
        code: 429,
        message: `Rate limited (HTTP 429)${body}. Polling backs off; lower the poll rate if it persists.`,
      }
    }
    return {
      kind: 'http',
      code: reply.status,
      message: `HTTP ${reply.status} ${http.STATUS_CODES[reply.status] ?? ''}`.trim() + body,
    }
  }

  function outcomeOf(message: unknown): RpcOutcome {
    if (typeof message !== 'object' || message === null) return malformed(JSON.stringify(message))
    const m = message as { result?: unknown; error?: { code?: unknown; message?: unknown } }
    if (m.error !== undefined) {
      const code = typeof m.error?.code === 'number' ? m.error.code : null
      const text = typeof m.error?.message === 'string' ? m.error.message : JSON.stringify(m.error)
      return { ok: false, error: { kind: 'rpc', code, message: scrub(text) } }
    }
    if (!('result' in m)) return malformed(JSON.stringify(message))
    return { ok: true, result: m.result }
  }

  function malformed(text: string): RpcOutcome {
    return {
      ok: false,
      error: {
        kind: 'malformed',
        code: null,
        message: `The node answered with something that is not JSON-RPC: ${scrub(excerpt(text, 80))}`,
      },
    }
  }

  async function call(c: RpcCall): Promise<RawExchange> {
    const request = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: c.method, params: c.params })
    const started = performance.now()
    const reply = await post(request)
    const elapsedMs = performance.now() - started
    if ('kind' in reply)
      return { request, response: null, httpStatus: null, elapsedMs, outcome: { ok: false, error: reply } }
    const response = scrub(reply.text)
    if (reply.status < 200 || reply.status >= 300) {
      return {
        request,
        response,
        httpStatus: reply.status,
        elapsedMs,
        outcome: { ok: false, error: httpFailure(reply) },
      }
    }
    const parsed = parseJson(reply.text)
    const outcome = parsed === undefined ? malformed(reply.text) : outcomeOf(parsed)
    return { request, response, httpStatus: reply.status, elapsedMs, outcome }
  }

  async function singles(calls: RpcCall[]): Promise<BatchResult> {
    if (calls.length === 1) {
      const only = await call(calls[0]!)
      return { outcomes: [only.outcome], latencyMs: only.elapsedMs }
    }
    const exchanges = await Promise.all(calls.map(call))
    return {
      outcomes: exchanges.map((e) => e.outcome),
      latencyMs: Math.max(...exchanges.map((e) => e.elapsedMs)),
    }
  }

  async function batch(calls: RpcCall[]): Promise<BatchResult> {
    if (calls.length === 1 || batching === 'refused') return singles(calls)
    const ids = calls.map(() => nextId++)
    const body = JSON.stringify(
      calls.map((c, i) => ({ jsonrpc: '2.0', id: ids[i], method: c.method, params: c.params })),
    )
    const started = performance.now()
    const reply = await post(body)
    const latencyMs = performance.now() - started
    const failAll = (error: RpcErrorInfo): BatchResult => ({
      outcomes: calls.map(() => ({ ok: false, error })),
      latencyMs,
    })
    if ('kind' in reply) return failAll(reply)
    // 429 and 5xx are the node's trouble, not a refusal of batches; other 4xx are.
    if (reply.status === 429 || reply.status >= 500) return failAll(httpFailure(reply))
    const parsed = reply.status >= 200 && reply.status < 300 ? parseJson(reply.text) : undefined
    if (!Array.isArray(parsed)) {
      if (reply.status >= 200 && reply.status < 300 && parsed === undefined) {
        const bad = malformed(reply.text)
        if (!bad.ok) return failAll(bad.error)
      }
      batching = 'refused'
      return singles(calls)
    }
    batching = 'yes'
    const byId = new Map<unknown, unknown>()
    for (const item of parsed)
      if (typeof item === 'object' && item !== null) byId.set((item as { id?: unknown }).id, item)
    return {
      outcomes: ids.map((id) =>
        byId.has(id) ? outcomeOf(byId.get(id)) : malformed(`no answer for request id ${id}`),
      ),
      latencyMs,
    }
  }

  return {
    call,
    batch,
    batchSupport: () => batching,
    close() {
      for (const req of pending) req.destroy()
      pending.clear()
      agent.destroy()
    },
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

function networkError(error: Error & { code?: string }): RpcErrorInfo {
  const code = error.code ?? ''
  const what =
    code === 'ECONNREFUSED'
      ? 'Connection refused: nothing listens at that address.'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'The host name does not resolve. Check rpcBaseUrl or the chain URL.'
        : code === 'ECONNRESET'
          ? 'The node closed the connection.'
          : /certificate|self.signed|TLS|SSL/i.test(error.message)
            ? `TLS failed (${error.message}).`
            : `${error.message}${code ? ` (${code})` : ''}`
  return { kind: 'network', code: null, message: what }
}
