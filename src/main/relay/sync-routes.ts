import type { IncomingMessage, ServerResponse } from 'node:http'
import { relayOpenApi } from '../../shared/openapi'
import type { SyncCursorProblem } from '../../shared/contract/sync'
import type { ConnectionGuard } from '../transport/connection-guard'
import { version } from '../version'
import { scopeAllows } from './store'
import { anchorOf, checkCursor, checkLimit, presentPage } from './sync-query'
import type { Checked } from './sync-query'
import type { HealthReport } from './sync-settings'
import { followStream, streamPageSize } from './sync-stream'
import type { StreamContext } from './sync-stream'
import { tokenOf } from './tokens'

let openApi: unknown = null

/** What the sync API's routes answer from, beyond the streams' own context. */
export interface SyncRoutes extends StreamContext {
  listenerStatus: () => Promise<unknown>
  /** GET /metrics: the relay's Prometheus text (same token as the sync API). */
  metrics?: () => Promise<string>
  /** GET /healthz (no token). */
  health: () => HealthReport
  guard: ConnectionGuard
}

/** Routing and authorisation: `/healthz` and `/openapi.json` open, everything else behind a live
 * relay token whose scope allows it; then one of the sync routes. */
export async function routeSync(ctx: SyncRoutes, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { store, metrics } = ctx
  let url: URL
  try {
    url = new URL(req.url ?? '/', 'http://relay')
  } catch {
    return send(res, 400, { error: 'malformed request target' })
  }
  if (url.pathname === '/healthz') {
    const report = ctx.health()
    return send(res, report.ok ? 200 : 503, { ...report, wakeups: store.wakeups() })
  }
  // No token: the document describes the API and holds no secret.
  if (url.pathname === '/openapi.json') return send(res, 200, (openApi ??= relayOpenApi(version)))
  const isMetrics = url.pathname === '/metrics' && metrics !== undefined
  if (!url.pathname.startsWith('/sync/') && !isMetrics)
    return send(res, 404, { error: 'not found: the sync API is under /sync/, metrics at /metrics' })
  if (req.method !== 'GET') return send(res, 405, { error: 'the sync API is read with GET' })
  const token = await tokenOf(store, req.headers.authorization)
  if (!token)
    return send(
      res,
      401,
      {
        error:
          'a live relay token is required: Authorization: Bearer <token> (watchdesk relay token create NAME)',
      },
      // Not kept alive: a socket without a token is not held for another try.
      { connection: 'close' },
    )
  ctx.guard.trust(req.socket)
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
  return routeRead(ctx, req, res, url, token.name)
}

/** The read routes, for a token with the `read` scope. */
async function routeRead(
  ctx: SyncRoutes,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  tokenName: string,
): Promise<void> {
  const { store } = ctx
  const after = url.searchParams.get('after') ?? '0'
  const refused = <T>(checked: Checked<T>): checked is Extract<Checked<T>, { ok: false }> => {
    if (checked.ok) return false
    const problem = (checked.body as { problem?: SyncCursorProblem }).problem
    if (problem) ctx.streams.noteRefusal(problem)
    send(res, checked.status, checked.body)
    return true
  }
  switch (url.pathname) {
    case '/sync/events': {
      const limit = checkLimit(url.searchParams.get('limit'))
      if (refused(limit)) return
      const cursor = await checkCursor(store, after)
      if (refused(cursor)) return
      const page = await store.readAfter(
        cursor.value.position,
        limit.value,
        url.searchParams.get('count') === '1',
      )
      if (!page.ok) return send(res, 400, { error: page.error.message })
      return send(res, 200, presentPage(page.value, store.identity, cursor.value.text))
    }
    case '/sync/stream': {
      const cursor = await checkCursor(store, after)
      if (refused(cursor)) return
      const place = ctx.streams.reserve(tokenName)
      // A refusal for too many streams: 429 with when to try again (a console retries by itself).
      if (!place.ok)
        return send(
          res,
          429,
          { error: place.error },
          { 'retry-after': String(Math.ceil(ctx.heartbeatMs / 1000) * 3) },
        )
      const first = await ctx
        .catchUpRead(() => store.readAfter(cursor.value.position, streamPageSize))
        .finally(place.release)
      if (!first.ok) return send(res, 400, { error: first.error.message })
      if (req.socket.destroyed) return
      return followStream(ctx, req, res, cursor.value, first.value, tokenName, req.headers.authorization!)
    }
    case '/sync/anchor': {
      const anchor = await anchorOf(store, url.searchParams.getAll('id'))
      if (refused(anchor)) return
      return send(res, 200, anchor.value)
    }
    case '/sync/listener':
      return send(res, 200, await ctx.listenerStatus())
    default:
      return send(res, 404, {
        error: 'not found: /sync/events, /sync/stream, /sync/anchor or /sync/listener',
      })
  }
}

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}
