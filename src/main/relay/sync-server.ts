import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { relayOpenApi } from '../../shared/openapi'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import type { RelayStore } from './store'
import { scopeAllows } from './store'
import { authorize, tokenOf } from './tokens'
import { version } from '../version'

export interface SyncServerSettings {
  host: string
  port: number
  tls?: { certFile: string; keyFile: string }
  /** A stream sends a heartbeat (and re-checks its token) at least this often. */
  heartbeatMs?: number
  /** A stream re-reads at least this often even without a commit notice. */
  pollMs?: number
}

export interface SyncServer {
  url: string
  port: number
  close(): Promise<void>
}

export const maxPageSize = 5_000
let openApi: unknown = null
const streamPageSize = 1_000

/** The sync API consoles read a relay through. Every request needs a live relay token. */
export async function startSyncServer(
  store: RelayStore,
  listenerStatus: () => Promise<unknown>,
  settings: SyncServerSettings,
  log: Logger,
  /** GET /metrics: the relay's Prometheus text (same token as the sync API). */
  metrics?: () => Promise<string>,
): Promise<Result<SyncServer>> {
  const heartbeatMs = settings.heartbeatMs ?? 10_000
  const pollMs = settings.pollMs ?? 1_000
  const streams = new Set<() => void>()
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      log.error('sync request failed', { path: req.url?.split('?')[0], error: (error as Error).message })
      send(res, 503, { error: 'the relay store cannot be read now; retry later' })
    })
  }
  let server: Server
  if (settings.tls) {
    try {
      server = createTlsServer(
        { cert: readFileSync(settings.tls.certFile), key: readFileSync(settings.tls.keyFile) },
        handler,
      )
    } catch (error) {
      return err(
        'unavailable',
        `The sync API's TLS files cannot be read (${(error as Error).message}). Fix --tls-cert / --tls-key.`,
      )
    }
  } else server = createServer(handler)
  server.keepAliveTimeout = 5_000

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL
    try {
      url = new URL(req.url ?? '/', 'http://relay')
    } catch {
      return send(res, 400, { error: 'malformed request target' })
    }
    if (url.pathname === '/healthz') return send(res, 200, { ok: true, wakeups: store.wakeups() })
    // No token: the document describes the API and holds no secret.
    if (url.pathname === '/openapi.json') return send(res, 200, (openApi ??= relayOpenApi(version)))
    const isMetrics = url.pathname === '/metrics' && metrics !== undefined
    if (!url.pathname.startsWith('/sync/') && !isMetrics)
      return send(res, 404, { error: 'not found: the sync API is under /sync/, metrics at /metrics' })
    if (req.method !== 'GET') return send(res, 405, { error: 'the sync API is read with GET' })
    const token = await tokenOf(store, req.headers.authorization)
    if (!token)
      return send(res, 401, {
        error:
          'a live relay token is required: Authorization: Bearer <token> (watchdesk relay token create NAME)',
      })
    if (!scopeAllows(token.scope, isMetrics ? 'metrics' : 'read'))
      return send(res, 403, {
        error: `the relay token "${token.name}" has scope ${token.scope}, which opens only /metrics: consoles need one made with --scope read`,
      })
    if (isMetrics) {
      const text = await metrics()
      res.writeHead(200, {
        'content-type': 'text/plain; version=0.0.4; charset=utf-8',
        'cache-control': 'no-store',
        'content-length': Buffer.byteLength(text),
      })
      return void res.end(text)
    }
    const after = url.searchParams.get('after') ?? '0'
    switch (url.pathname) {
      case '/sync/events': {
        const limit = Math.min(Math.max(1, Number(url.searchParams.get('limit') ?? 500) || 500), maxPageSize)
        const page = await store.readAfter(after, limit, url.searchParams.get('count') === '1')
        if (!page.ok) return send(res, 400, { error: page.error.message })
        return send(res, 200, page.value)
      }
      case '/sync/stream':
        return stream(req, res, after, req.headers.authorization!)
      case '/sync/listener':
        return send(res, 200, await listenerStatus())
      default:
        return send(res, 404, { error: 'not found: /sync/events, /sync/stream or /sync/listener' })
    }
  }

  /** Server-sent events: `events` with a page and its next cursor, `heartbeat` when idle. The
   * token is checked again at every heartbeat: a revoked token's stream ends within one. */
  async function stream(req: IncomingMessage, res: ServerResponse, after: string, authorization: string) {
    const first = await store.readAfter(after, streamPageSize)
    if (!first.ok) return send(res, 400, { error: first.error.message })
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    })
    res.write(`retry: 1000\n\n`)
    let cursor = after
    let closed = false
    let wake: (() => void) | null = null
    // Set by a commit notice; a notice that lands between a read and the wait is not lost.
    let dirty = false
    const poke = () => {
      dirty = true
      const w = wake
      wake = null
      w?.()
    }
    const off = store.onCommitted(poke)
    const end = () => {
      closed = true
      poke()
    }
    streams.add(end)
    req.once('close', end)
    const write = async (text: string) => {
      if (!res.write(text)) await new Promise<void>((r) => res.once('drain', r).once('close', r))
    }
    let lastBeat = Date.now()
    let page = first.value
    try {
      while (!closed) {
        if (page.events.length > 0) {
          cursor = page.next
          await write(`id: ${cursor}\nevent: events\ndata: ${JSON.stringify(page)}\n\n`)
          if (page.events.length === streamPageSize) {
            const more = await store.readAfter(cursor, streamPageSize)
            if (!more.ok) break
            page = more.value
            continue
          }
        }
        const wait = dirty ? 0 : Math.max(0, Math.min(pollMs, lastBeat + heartbeatMs - Date.now()))
        dirty = false
        await new Promise<void>((r) => {
          const t = setTimeout(r, wait)
          wake = () => {
            clearTimeout(t)
            r()
          }
        })
        if (closed) break
        if (Date.now() - lastBeat >= heartbeatMs) {
          lastBeat = Date.now()
          if (!(await authorize(store, authorization))) {
            await write(
              `event: revoked\ndata: ${JSON.stringify({ error: 'the relay token was revoked' })}\n\n`,
            )
            break
          }
          await write(`event: heartbeat\ndata: ${JSON.stringify({ at: lastBeat, cursor })}\n\n`)
        }
        const next = await store.readAfter(cursor, streamPageSize)
        if (!next.ok) break
        page = next.value
      }
    } catch (error) {
      log.warn('a sync stream ended on a read error', { error: (error as Error).message })
    } finally {
      off()
      streams.delete(end)
      res.end()
    }
  }

  return new Promise((resolveListen) => {
    const onError = (error: NodeJS.ErrnoException) =>
      resolveListen(
        err(
          'unavailable',
          `The sync API cannot listen on ${settings.host}:${settings.port} (${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}). Pick another --port.`,
        ),
      )
    server.once('error', onError)
    server.listen(settings.port, settings.host, () => {
      server.off('error', onError)
      const port = (server.address() as AddressInfo).port
      const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host
      resolveListen(
        ok({
          url: `${settings.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
          port,
          close: () =>
            new Promise<void>((r) => {
              for (const end of streams) end()
              server.close(() => r())
              server.closeAllConnections()
            }),
        }),
      )
    })
  })
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}
