import { STATUS_CODES } from 'node:http'
import type { Readable } from 'node:stream'
import type { Client } from 'undici'
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
  /** Round trip of the batch, or until the last single call answered after a fallback (the
   * single calls take turns on the one connection). */
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
  /** Each answer's HTTP Date header, with this machine's time when it arrived (the clock guard). */
  onDate?: (localMs: number, date: string) => void
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
  // undici (Node's own HTTP client, as a library): one keep-alive connection per endpoint at
  // about two thirds of node:http's CPU per request, which keeps a poll of several references
  // cheap. Requests on it take turns (no pipelining): a poll is one batch request anyway.
  // Loaded with the first request: commands that never poll do not load the library.
  let connection: Promise<Client> | null = null
  const pool = () =>
    (connection ??= import('undici').then(
      ({ Client }) => new Client(url.origin, { keepAliveTimeout: 30_000 }),
    ))
  const scrub = options.scrub ?? ((t: string) => t)
  const maxBytes = options.maxResponseBytes ?? 1024 * 1024
  const path = `${url.pathname}${url.search}`
  const headers: Record<string, string> = { ...options.headers, 'content-type': 'application/json' }
  if (url.username)
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
  let nextId = 1
  let batching: 'yes' | 'refused' | 'unknown' = 'unknown'
  const pending = new Set<AbortController>()

  async function post(body: string): Promise<HttpReply | RpcErrorInfo> {
    const controller = new AbortController()
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      controller.abort()
    }, options.timeoutMs)
    pending.add(controller)
    try {
      const res = await (
        await pool()
      ).request({ method: 'POST', path, headers, body, signal: controller.signal })
      const date = res.headers.date
      if (options.onDate && typeof date === 'string') options.onDate(Date.now(), date)
      const text = await readBody(res.body, maxBytes)
      return typeof text === 'string' ? { status: res.statusCode, text } : text
    } catch (error) {
      if (timedOut)
        return { kind: 'timeout', code: null, message: `No answer within ${options.timeoutMs} ms.` }
      return networkError(error as Error & { code?: string })
    } finally {
      clearTimeout(timer)
      pending.delete(controller)
    }
  }

  async function call(c: RpcCall, keepResponse = true): Promise<RawExchange> {
    const request = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: c.method, params: c.params })
    const started = performance.now()
    const reply = await post(request)
    const elapsedMs = performance.now() - started
    if ('kind' in reply)
      return { request, response: null, httpStatus: null, elapsedMs, outcome: { ok: false, error: reply } }
    // The scrubbed text is for the RPC console; a poll reads only the outcome.
    const response = keepResponse ? scrub(reply.text) : null
    if (reply.status < 200 || reply.status >= 300) {
      return {
        request,
        response,
        httpStatus: reply.status,
        elapsedMs,
        outcome: { ok: false, error: httpFailure(scrub, reply) },
      }
    }
    const parsed = parseJson(reply.text)
    const outcome = parsed === undefined ? malformed(scrub, reply.text) : outcomeOf(scrub, parsed)
    return { request, response, httpStatus: reply.status, elapsedMs, outcome }
  }

  async function singles(calls: RpcCall[]): Promise<BatchResult> {
    if (calls.length === 1) {
      const only = await call(calls[0]!, false)
      return { outcomes: [only.outcome], latencyMs: only.elapsedMs }
    }
    const exchanges = await Promise.all(calls.map((c) => call(c, false)))
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
    if (reply.status === 429 || reply.status >= 500) return failAll(httpFailure(scrub, reply))
    const parsed = reply.status >= 200 && reply.status < 300 ? parseJson(reply.text) : undefined
    if (!Array.isArray(parsed)) {
      if (reply.status >= 200 && reply.status < 300 && parsed === undefined) {
        const bad = malformed(scrub, reply.text)
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
        byId.has(id) ? outcomeOf(scrub, byId.get(id)) : malformed(scrub, `no answer for request id ${id}`),
      ),
      latencyMs,
    }
  }

  return {
    call: (c) => call(c),
    batch,
    batchSupport: () => batching,
    close() {
      for (const controller of pending) controller.abort()
      pending.clear()
      void connection?.then((c) => c.destroy()).catch(() => {})
    },
  }
}

/** What an HTTP answer other than 2xx means, in the operator's terms. */
function httpFailure(scrub: (t: string) => string, reply: HttpReply): RpcErrorInfo {
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
    message: `HTTP ${reply.status} ${STATUS_CODES[reply.status] ?? ''}`.trim() + body,
  }
}

function outcomeOf(scrub: (t: string) => string, message: unknown): RpcOutcome {
  if (typeof message !== 'object' || message === null) return malformed(scrub, JSON.stringify(message))
  const m = message as { result?: unknown; error?: { code?: unknown; message?: unknown } }
  if (m.error !== undefined) {
    const code = typeof m.error?.code === 'number' ? m.error.code : null
    const text = typeof m.error?.message === 'string' ? m.error.message : JSON.stringify(m.error)
    return { ok: false, error: { kind: 'rpc', code, message: scrub(text) } }
  }
  if (!('result' in m)) return malformed(scrub, JSON.stringify(message))
  return { ok: true, result: m.result }
}

function malformed(scrub: (t: string) => string, text: string): RpcOutcome {
  return {
    ok: false,
    error: {
      kind: 'malformed',
      code: null,
      message: `The node answered with something that is not JSON-RPC: ${scrub(excerpt(text, 80))}`,
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

/** The answer's text, or an error when it is larger than `maxBytes` (the rest is not read). */
function readBody(body: Readable, maxBytes: number): Promise<string | RpcErrorInfo> {
  return new Promise((resolve) => {
    let text = ''
    body.setEncoding('utf8')
    body.on('data', (chunk: string) => {
      text += chunk
      if (text.length <= maxBytes) return
      body.destroy()
      resolve({
        kind: 'malformed',
        code: null,
        message: `The node's answer is larger than ${maxBytes} bytes.`,
      })
    })
    body.on('end', () => resolve(text))
    body.on('error', (error) => resolve(networkError(error as Error & { code?: string })))
  })
}

function networkError(raw: Error & { code?: string; cause?: unknown }): RpcErrorInfo {
  // undici wraps the socket's error (ECONNREFUSED, ENOTFOUND…) as the cause of its own.
  const cause = raw.cause as (Error & { code?: string }) | undefined
  const error = cause?.code && !raw.code?.startsWith('ECONN') ? cause : raw
  const code = error.code === 'UND_ERR_SOCKET' ? 'ECONNRESET' : (error.code ?? '')
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
