import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { timingSafeEqual } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { err, ok } from '../../shared/result'
import type { ErrorCode, Result } from '../../shared/result'
import type { Logger } from '../log'
import type { PushBus } from '../push'
import { dispatch } from './dispatch'
import type { ApiHandlers } from './dispatch'
import { serveStatic } from './static'

export const contentSecurityPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

export interface ConsoleServerOptions {
  handlers: ApiHandlers
  push: PushBus
  token: string
  rendererDir: string
  log: Logger
  /** GET /metrics (Prometheus text, same token). */
  metrics?: () => Promise<string>
}

export interface ConsoleServer {
  listen(port: number, host?: string): Promise<Result<{ port: number; url: string }>>
  close(): Promise<void>
}

const statusOf: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  unavailable: 503,
  keychain_unavailable: 503,
  upstream: 502,
  internal: 500,
}

const maxRequestBytes = 1024 * 1024

/** serve mode's HTTP face: the built renderer, `POST /api/call/<method>` for every contract method,
 * `GET /api/push` (server-sent events) for live updates. Loopback only: requests whose Host or
 * Origin is not this console get 403 (DNS rebinding, cross-site), API requests without the
 * per-launch token get 401. */
export function createConsoleServer(options: ConsoleServerOptions): ConsoleServer {
  const { log } = options
  const streams = new Set<ServerResponse>()
  let port = 0
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.error('console request failed', { error, path: req.url })
      if (!res.headersSent)
        sendJson(res, 500, err('internal', 'watchdesk failed to answer; the log has the details.'))
      else res.destroy()
    })
  })
  server.headersTimeout = 10_000
  server.requestTimeout = 30_000

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const origin = checkOrigin(req, port)
    if (!origin.ok) return sendJson(res, 403, origin)
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`)
    if (url.pathname === '/metrics' && options.metrics) return sendMetrics(req, res, options.metrics)
    if (!url.pathname.startsWith('/api/'))
      return serveStatic(options.rendererDir, url.pathname, req, res, contentSecurityPolicy)
    if (!hasToken(req, options.token)) {
      return sendJson(
        res,
        401,
        err(
          'unauthorized',
          'This console needs its launch token: open the URL watchdesk printed at start (it carries ?token=…), or send Authorization: Bearer <token>.',
        ),
      )
    }
    if (url.pathname === '/api/health' && req.method === 'GET')
      return answer(res, await dispatch(options.handlers, 'app.health', {}, log))
    if (url.pathname === '/api/push' && req.method === 'GET') return openStream(req, res)
    const call = /^\/api\/call\/([\w.]+)$/.exec(url.pathname)
    if (call && req.method === 'POST') {
      const body = await readJson(req)
      if (!body.ok) return answer(res, body)
      return answer(res, await dispatch(options.handlers, call[1]!, body.value, log))
    }
    if (call) return sendJson(res, 405, err('bad_request', 'API calls are POST requests with a JSON body.'))
    return sendJson(res, 404, err('not_found', `No API route ${url.pathname}.`))
  }

  async function sendMetrics(req: IncomingMessage, res: ServerResponse, read: () => Promise<string>) {
    if (!hasToken(req, options.token))
      return sendJson(
        res,
        401,
        err('unauthorized', 'GET /metrics needs the console token: Authorization: Bearer <token>.'),
      )
    const text = await read()
    res.writeHead(200, {
      'content-type': 'text/plain; version=0.0.4; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    })
    res.end(text)
  }

  function openStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    })
    res.write(': connected\n\n')
    streams.add(res)
    const unsubscribe = options.push.subscribe((message) => res.write(`data: ${JSON.stringify(message)}\n\n`))
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000)
    req.on('close', () => {
      clearInterval(heartbeat)
      unsubscribe()
      streams.delete(res)
    })
  }

  return {
    listen: (wantedPort, host = '127.0.0.1') =>
      new Promise((resolveListen) => {
        const onError = (error: NodeJS.ErrnoException) => {
          resolveListen(
            err(
              'unavailable',
              error.code === 'EADDRINUSE'
                ? `Port ${wantedPort} on ${host} is already in use (another watchdesk?). Stop it, or start with --port <other>.`
                : `Cannot listen on ${host}:${wantedPort}: ${error.message}`,
            ),
          )
        }
        server.once('error', onError)
        server.listen(wantedPort, host, () => {
          server.off('error', onError)
          port = (server.address() as AddressInfo).port
          resolveListen(ok({ port, url: `http://127.0.0.1:${port}` }))
        })
      }),
    close: () =>
      new Promise((resolveClose) => {
        for (const stream of streams) stream.end()
        server.close(() => resolveClose())
        server.closeAllConnections()
      }),
  }
}

function checkOrigin(req: IncomingMessage, port: number): Result<null> {
  const allowed = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`])
  const host = req.headers.host ?? ''
  if (!allowed.has(host)) {
    return err('forbidden', `Host "${host}" is not this console; open http://127.0.0.1:${port}/ instead.`)
  }
  const origin = req.headers.origin
  if (
    origin !== undefined &&
    !(origin.startsWith('http://') && allowed.has(origin.slice('http://'.length)))
  ) {
    return err(
      'forbidden',
      `Requests from ${origin} are refused: only the console's own page may call its API.`,
    )
  }
  if (req.headers['sec-fetch-site'] === 'cross-site')
    return err('forbidden', 'Cross-site requests are refused.')
  return ok(null)
}

function hasToken(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? ''
  const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7).trim() : '')
  const expected = Buffer.from(token)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

async function readJson(req: IncomingMessage): Promise<Result<unknown>> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > maxRequestBytes)
      return err('bad_request', `An API request body may be at most ${maxRequestBytes} bytes.`)
    chunks.push(chunk as Buffer)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return ok({})
  try {
    return ok(JSON.parse(text))
  } catch {
    return err('bad_request', 'The request body is not valid JSON.')
  }
}

function answer(res: ServerResponse, result: Result<unknown>): void {
  sendJson(res, result.ok ? 200 : statusOf[result.error.code], result)
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  })
  res.end(text)
}
