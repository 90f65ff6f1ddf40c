import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { timingSafeEqual } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import { contentSecurityPolicy } from '../../shared/csp'
import { consoleOpenApi } from '../../shared/openapi'
import { version } from '../version'
import { heartbeatEveryMs } from '../../shared/liveness'
import { err, ok } from '../../shared/result'
import type { ErrorCode, Result } from '../../shared/result'
import type { Logger } from '../log'
import type { PushBus } from '../push'
import { dispatch } from './dispatch'
import type { ApiHandlers } from './dispatch'
import { createStreamWriter, streamWriterDefaults } from './stream-writer'
import { pushFrame } from './push-frame'
import { serveStatic } from './static'

export interface ConsoleServerOptions {
  handlers: ApiHandlers
  push: PushBus
  token: string
  rendererDir: string
  log: Logger
  /** How often the push stream carries `app.heartbeat` (default src/shared/liveness.ts). */
  heartbeatMs?: number
  /** Unsent bytes a push stream may hold before it is ended (its page reconnects and reloads). */
  maxBufferedBytes?: number
  /** GET /metrics (Prometheus text, same token). */
  metrics?: () => Promise<string>
  /** GET /metrics also opens to these (a metrics-scoped token for Prometheus). */
  metricsToken?: (authorization: string | undefined) => boolean
}

export interface ConsoleServer {
  listen(port: number, host?: string): Promise<Result<{ port: number; url: string }>>
  close(): Promise<void>
  /** Push streams open now: console pages that receive live updates (and desktop alerts). */
  streams(): number
  /** Push streams ended because their page fell more than `maxBufferedBytes` behind. */
  droppedStreams(): number
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

let openApi: unknown = null
/** Generated from the contract once, on first request. */
const openApiDocument = () => (openApi ??= consoleOpenApi(version))

/** serve mode's HTTP face: the built renderer, `POST /api/call/<method>` for every contract method,
 * `GET /api/push` (server-sent events) for live updates. Loopback only: requests whose Host or
 * Origin is not this console get 403 (DNS rebinding, cross-site), API requests without the
 * per-launch token get 401. */
export function createConsoleServer(options: ConsoleServerOptions): ConsoleServer {
  const { log } = options
  const streams = new Set<ServerResponse>()
  let dropped = 0
  let port = 0
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // The path only: a query may carry the launch token (?token=…), which is printed once on
      // stdout and never written to a log.
      log.error('console request failed', { error, path: pathOf(req.url) })
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
    const pathname = decodedPath(req.url)
    // A malformed target is the client's mistake: a plain 400, no stack and no log line, so a flood
    // of them costs neither CPU nor disk.
    if (pathname === null) return sendJson(res, 400, err('bad_request', 'The request target is malformed.'))
    if (pathname === '/metrics' && options.metrics) return sendMetrics(req, res, options.metrics)
    // The API's description holds no secret: a client generator may read it without the token.
    if (pathname === '/openapi.json' && req.method === 'GET') return sendJson(res, 200, openApiDocument())
    if (!pathname.startsWith('/api/'))
      return serveStatic(options.rendererDir, pathname, req, res, contentSecurityPolicy)
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
    if (pathname === '/api/health' && req.method === 'GET')
      return answer(res, await dispatch(options.handlers, 'app.health', {}, log))
    if (pathname === '/api/push' && req.method === 'GET') return openStream(req, res)
    const call = /^\/api\/call\/([\w.]+)$/.exec(pathname)
    if (call && req.method === 'POST') {
      const body = await readJson(req)
      if (!body.ok) return answer(res, body)
      return answer(res, await dispatch(options.handlers, call[1]!, body.value, log))
    }
    if (call) return sendJson(res, 405, err('bad_request', 'API calls are POST requests with a JSON body.'))
    return sendJson(res, 404, err('not_found', `No API route ${pathname}.`))
  }

  async function sendMetrics(req: IncomingMessage, res: ServerResponse, read: () => Promise<string>) {
    if (!hasToken(req, options.token) && !options.metricsToken?.(req.headers.authorization))
      return sendJson(
        res,
        401,
        err(
          'unauthorized',
          'GET /metrics needs the console token or a metrics token (watchdesk relay token create NAME --scope metrics): Authorization: Bearer <token>.',
        ),
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
    // A data message, not a comment: the renderer reads it through the same path as every push and
    // knows the back end is gone when it stops (src/shared/liveness.ts).
    const writer = createStreamWriter(res, {
      maxBufferedBytes: options.maxBufferedBytes ?? streamWriterDefaults.maxBufferedBytes,
      heartbeat: () => pushFrame({ topic: 'app.heartbeat', payload: { at: Date.now() } }).join(''),
      heartbeatMs: options.heartbeatMs ?? heartbeatEveryMs,
      heartbeatWhenQuietOnly: false,
    })
    const subscription = options.push.subscribe((message) => {
      // In pieces: a large push (500 summaries) is never one large string (push-frame.ts).
      if (writer.offer(pushFrame(message))) return
      // The page stopped reading (a frozen tab, a stalled proxy): end its stream rather than keep
      // what it does not take. Its client reconnects and reloads what it shows (onResync).
      dropped++
      log.warn('a push subscriber fell behind; its stream was ended so that it reloads', {
        buffered: writer.buffered(),
      })
      writer.end()
    })
    writer.beat()
    writer.onClose(() => {
      subscription.dispose()
      streams.delete(res)
    })
    req.on('close', () => writer.end())
  }

  return {
    streams: () => streams.size,
    droppedStreams: () => dropped,
    listen: (wantedPort, host = '127.0.0.1') =>
      new Promise((resolveListen) => {
        const onError = (error: NodeJS.ErrnoException) => {
          resolveListen(
            err(
              'unavailable',
              error.code === 'EADDRINUSE'
                ? `Port ${wantedPort} on ${host} is already in use (another watchdesk?). Stop it, or start with --port <other> (watchdesk doctor shows the ports in use).`
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

/** The request target's path, percent-decoded; null when it cannot be parsed or decoded. */
export function decodedPath(target: string | undefined): string | null {
  const raw = pathOf(target)
  if (!raw.startsWith('/')) return null
  try {
    // WHATWG parsing first: it resolves dot segments the way a browser does.
    const pathname = new URL(raw, 'http://127.0.0.1').pathname
    const decoded = decodeURIComponent(pathname)
    return decoded.includes('\0') ? null : decoded
  } catch {
    return null
  }
}

function pathOf(target: string | undefined): string {
  const raw = target ?? '/'
  const query = raw.search(/[?#]/)
  return query >= 0 ? raw.slice(0, query) : raw
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
