import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { relayOpenApi } from '../../shared/openapi'
import { syncPageLimit } from '../../shared/contract/sync'
import type { SyncCursorProblem } from '../../shared/contract/sync'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import type { RelayStore } from './store'
import { createChangeFeed, frameOf } from './change-feed'
import type { FeedPage } from './change-feed'
import { scopeAllows } from './store'
import { anchorOf, checkCursor, checkLimit, presentPage } from './sync-query'
import type { Checked, CheckedCursor } from './sync-query'
import { authorize, tokenOf } from './tokens'
import { version } from '../version'
import { createStreamWriter } from '../transport/stream-writer'
import { guardConnections } from '../transport/connection-guard'

export interface SyncServerSettings {
  host: string
  port: number
  tls?: { certFile: string; keyFile: string }
  /** A stream sends a heartbeat (and its token is checked again) at least this often. */
  heartbeatMs?: number
  /** The change feed re-reads at least this often even without a commit notice. */
  pollMs?: number
  /** Open streams allowed (`sync.maxStreams`): beyond them a stream is refused with 429. */
  maxStreams?: { perToken?: number; perRelay?: number }
  /** Connections the sync port holds at once; more are answered 503 with Retry-After. */
  maxConnections?: number
  /** Connections from one address without an authorised request yet (`sync.unauthenticated`);
   * more are answered 503 with Retry-After, and each is closed after `deadlineMs` unless it made
   * one: a peer holding sockets cannot crowd out token holders. */
  unauthenticated?: { perAddress?: number; deadlineMs?: number }
  /** Unsent bytes a live stream may hold before it is cut to catch-up mode. */
  maxBufferedBytes?: number
}

export const syncDefaults = {
  heartbeatMs: 10_000,
  pollMs: 1_000,
  maxStreams: { perToken: 16, perRelay: 256 },
  maxConnections: 1_024,
  unauthenticated: { perAddress: 128, deadlineMs: 3_000 },
  maxBufferedBytes: 256 * 1024,
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
} as const

/** What `/healthz` answers: not ok (503) while the store cannot commit; warnings either way. */
export interface HealthReport {
  ok: boolean
  storage: string
  cause: string | null
  fix: string | null
  warnings: string[]
}

export interface SyncStreamStats {
  /** Open streams: following the change feed, or reading the store to catch up. */
  live: number
  catchingUp: number
  /** Live streams cut to catch-up because they did not keep up. */
  cut: number
  /** Reads of the change feed (one per commit notice, however many streams follow). */
  feedReads: number
  /** Bytes written to streams and not yet sent, all streams together. */
  buffered: number
  /** Cursors answered 409 since start, by why. */
  cursorRefusals: Record<SyncCursorProblem, number>
}

export interface SyncServer {
  url: string
  port: number
  streams(): SyncStreamStats
  close(): Promise<void>
}

export const maxPageSize = syncPageLimit.max
let openApi: unknown = null
const streamPageSize = 1_000

interface OpenStream {
  token: string
  buffered(): number
  authorization: string
  live: boolean
  beat(): void
  revoke(): void
  end(): void
}

/** The sync API consoles read a relay through. Every request needs a live relay token. */
export async function startSyncServer(
  store: RelayStore,
  listenerStatus: () => Promise<unknown>,
  settings: SyncServerSettings,
  log: Logger,
  /** GET /metrics: the relay's Prometheus text (same token as the sync API). */
  metrics?: () => Promise<string>,
  /** GET /healthz (no token). */
  health: () => HealthReport = () => ({ ok: true, storage: 'ok', cause: null, fix: null, warnings: [] }),
): Promise<Result<SyncServer>> {
  const heartbeatMs = settings.heartbeatMs ?? syncDefaults.heartbeatMs
  const perToken = settings.maxStreams?.perToken ?? syncDefaults.maxStreams.perToken
  const perRelay = settings.maxStreams?.perRelay ?? syncDefaults.maxStreams.perRelay
  const maxBuffered = settings.maxBufferedBytes ?? syncDefaults.maxBufferedBytes
  const pollMs = settings.pollMs ?? syncDefaults.pollMs
  const feed = createChangeFeed(
    store,
    {
      pageSize: streamPageSize,
      keepEvents: 5_000,
      pollMs,
      coalesceMs: 100,
      present: (page) => presentPage(page, store.identity, '0'),
    },
    log,
  )
  const open = new Set<OpenStream>()
  /** Streams being opened (their first read running), by token name. */
  const opening = new Map<string, number>()
  let cut = 0
  const cursorRefusals: Record<SyncCursorProblem, number> = {
    'other-store': 0,
    'past-end': 0,
    'replaced-event': 0,
  }
  // Streams catching up read a page at a time, a few at once: a hundred followers reconnecting
  // together hold a few pages in memory, not a hundred.
  const catchUpRead = limiter(4)
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error: unknown) => {
      log.error('sync request failed', { path: req.url?.split('?')[0], error: (error as Error).message })
      send(res, 503, { error: 'the relay store cannot be read now; retry later' })
    })
  }
  // The listener's time-outs: a socket that sends no complete request within 5 s is closed, an
  // idle keep-alive one after 5 s, and no more than maxConnections are held, so a slowloris on
  // this port cannot take the file descriptors the webhook listener needs.
  const timeouts = {
    headersTimeout: syncDefaults.headersTimeoutMs,
    requestTimeout: syncDefaults.requestTimeoutMs,
    keepAliveTimeout: syncDefaults.keepAliveTimeoutMs,
    connectionsCheckingInterval: 1_000,
  }
  let server: Server
  if (settings.tls) {
    try {
      server = createTlsServer(
        { ...timeouts, cert: readFileSync(settings.tls.certFile), key: readFileSync(settings.tls.keyFile) },
        handler,
      )
    } catch (error) {
      feed.close()
      return err(
        'unavailable',
        `The sync API's TLS files cannot be read (${(error as Error).message}). Fix --tls-cert / --tls-key.`,
      )
    }
  } else server = createServer(timeouts, handler)
  const guard = guardSyncPort(server, settings, heartbeatMs, settings.tls !== undefined)

  // One token check per token (not per stream) each heartbeat; a revoked token's streams end.
  let beating = false
  const beat = async () => {
    if (beating || open.size === 0) return
    beating = true
    try {
      const byAuthorization = new Map<string, OpenStream[]>()
      for (const s of open)
        byAuthorization.set(s.authorization, [...(byAuthorization.get(s.authorization) ?? []), s])
      for (const [authorization, streams] of byAuthorization) {
        let live: string | null
        try {
          live = await authorize(store, authorization)
        } catch {
          continue // the store cannot answer now: checked again next heartbeat
        }
        for (const s of streams) {
          if (live) s.beat()
          else s.revoke()
        }
      }
    } finally {
      beating = false
    }
  }
  const heartbeat = setInterval(() => void beat(), heartbeatMs)
  heartbeat.unref()

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL
    try {
      url = new URL(req.url ?? '/', 'http://relay')
    } catch {
      return send(res, 400, { error: 'malformed request target' })
    }
    if (url.pathname === '/healthz') {
      const report = health()
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
    guard.trust(req.socket)
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
    const refused = <T>(checked: Checked<T>): checked is Extract<Checked<T>, { ok: false }> => {
      if (checked.ok) return false
      const problem = (checked.body as { problem?: SyncCursorProblem }).problem
      if (problem) cursorRefusals[problem]++
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
        return stream(req, res, cursor.value, token.name, req.headers.authorization!)
      }
      case '/sync/anchor': {
        const anchor = await anchorOf(store, url.searchParams.getAll('id'))
        if (refused(anchor)) return
        return send(res, 200, anchor.value)
      }
      case '/sync/listener':
        return send(res, 200, await listenerStatus())
      default:
        return send(res, 404, {
          error: 'not found: /sync/events, /sync/stream, /sync/anchor or /sync/listener',
        })
    }
  }

  /** A refusal for too many streams: 429 with when to try again (a console retries by itself). */
  function tooMany(res: ServerResponse, error: string): void {
    send(res, 429, { error }, { 'retry-after': String(Math.ceil(heartbeatMs / 1000) * 3) })
  }

  /** Server-sent events: `events` with a page and its next cursor, `heartbeat` when idle,
   * `revoked` before the stream ends for a revoked token. A stream first catches up from the
   * store page by page (each page written once the previous one drained), then joins the change
   * feed; a live stream that falls more than `maxBufferedBytes` behind is cut back to catching
   * up, so nothing buffers without bound. */
  async function stream(
    req: IncomingMessage,
    res: ServerResponse,
    after: CheckedCursor,
    token: string,
    authorization: string,
  ): Promise<void> {
    const ofToken = [...open].filter((s) => s.token === token).length + (opening.get(token) ?? 0)
    if (open.size + [...opening.values()].reduce((a, b) => a + b, 0) >= perRelay)
      return tooMany(
        res,
        `this relay already serves ${perRelay} streams (sync.maxStreams.perRelay); retry later or raise it`,
      )
    if (ofToken >= perToken)
      return tooMany(
        res,
        `the token "${token}" already has ${perToken} open streams (sync.maxStreams.perToken); close one, use another token, or raise it`,
      )
    // The place is taken now: streams opened at the same moment cannot all pass the limit.
    opening.set(token, (opening.get(token) ?? 0) + 1)
    const first = await catchUpRead(() => store.readAfter(after.position, streamPageSize)).finally(() => {
      const n = (opening.get(token) ?? 1) - 1
      if (n > 0) opening.set(token, n)
      else opening.delete(token)
    })
    if (!first.ok) return send(res, 400, { error: first.error.message })
    if (req.socket.destroyed) return
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    })
    res.write(`retry: 1000\n\n`)
    /** The store's position this stream reached, and the cursor its client holds there. */
    let cursor = after.position
    let shown = after.text
    let closed = false
    // Bounded: a live frame is refused beyond maxBuffered (the stream is cut to catch-up below).
    const writer = createStreamWriter(res, {
      maxBufferedBytes: maxBuffered,
      heartbeat: () => `event: heartbeat\ndata: ${JSON.stringify({ at: Date.now(), cursor: shown })}\n\n`,
      endGraceMs: Math.min(1_000, heartbeatMs),
    })
    let membership: { leave(): void } | null = null
    let wake: (() => void) | null = null
    const poke = () => {
      const w = wake
      wake = null
      w?.()
    }
    /** Until `poke` (cut, end), or also until the socket drained. */
    const pause = (untilDrain: boolean) =>
      new Promise<void>((resolve) => {
        const done = () => {
          wake = null
          resolve()
        }
        wake = done
        if (untilDrain) void writer.drained().then(() => wake === done && done())
      })
    /** Until a commit notice, `pollMs`, or the stream's end: at most one read per commit or poll. */
    const nextCommit = async () => {
      const notice = store.onCommitted(poke)
      const poll = setTimeout(poke, pollMs)
      try {
        await pause(false)
      } finally {
        notice.dispose()
        clearTimeout(poll)
      }
    }
    const write = (frame: string | Buffer) => writer.write(frame)
    const finish = (last?: string) => {
      if (closed) return
      closed = true
      membership?.leave()
      membership = null
      open.delete(entry)
      // A client that stopped reading is cut off shortly after (the writer's end grace).
      writer.end(last)
      poke()
    }
    const entry: OpenStream = {
      token,
      buffered: () => writer.buffered(),
      authorization,
      live: false,
      beat: () => writer.beat(),
      revoke: () =>
        finish(`event: revoked\ndata: ${JSON.stringify({ error: 'the relay token was revoked' })}\n\n`),
      end: () => finish(),
    }
    open.add(entry)
    req.once('close', () => finish())
    const deliver = (page: FeedPage) => {
      if (closed || !membership) return
      if (!writer.offer(page.frame)) {
        // Too far behind: leave the feed, catch up from the store at this stream's own pace.
        membership.leave()
        membership = null
        entry.live = false
        cut++
        return poke()
      }
      cursor = page.page.next
      shown = page.shown
    }
    const readPage = async () => {
      const page = await catchUpRead(() => store.readAfter(cursor, streamPageSize))
      if (!page.ok) throw new Error(page.error.message)
      return page.value
    }
    let page = first.value
    try {
      while (!closed) {
        if (page.events.length > 0) {
          const seen = presentPage(page, store.identity, shown)
          write(frameOf(seen))
          cursor = page.next
          shown = seen.next
          if (writer.needsDrain()) await pause(true)
          if (closed) break
        }
        if (page.events.length === streamPageSize) {
          page = await readPage()
          continue
        }
        // At the end of what the store holds: join the feed (once it has read this far).
        let joined = feed.join(cursor, deliver)
        if (!joined) {
          await feed.refresh()
          if (closed) break
          joined = feed.join(cursor, deliver)
        }
        if (!joined) {
          page = await readPage()
          // Nothing new, and the feed does not know this position: wait for a commit (or the poll)
          // before reading again. Never a loop of reads that does not yield (issue 29).
          if (page.events.length === 0) await nextCommit()
          continue
        }
        membership = joined
        entry.live = true
        for (const b of joined.backlog) deliver(b)
        // Live until cut (or the end); a backlog already too large was cut above.
        if (membership) await pause(false)
        if (closed) break
        // Cut: let the socket drain, then catch up from where this stream got to.
        if (writer.needsDrain()) await pause(true)
        page = closed ? page : await readPage()
      }
    } catch (error) {
      log.warn('a sync stream ended on a read error', { error: (error as Error).message })
    } finally {
      finish()
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
          streams: () => {
            const live = [...open].filter((s) => s.live).length
            const buffered = [...open].reduce((sum, s) => sum + s.buffered(), 0)
            return {
              live,
              catchingUp: open.size - live,
              cut,
              feedReads: feed.reads,
              buffered,
              cursorRefusals: { ...cursorRefusals },
            }
          },
          close: () =>
            new Promise<void>((r) => {
              clearInterval(heartbeat)
              guard.stop()
              for (const s of open) s.end()
              feed.close()
              server.close(() => r())
              server.closeAllConnections()
            }),
        }),
      )
    })
  })
}

/** The sync port's connection limits (docs/reliability.md, "Bounded against any peer"). */
function guardSyncPort(server: Server, settings: SyncServerSettings, heartbeatMs: number, tls: boolean) {
  const maxConnections = settings.maxConnections ?? syncDefaults.maxConnections
  const perAddress = settings.unauthenticated?.perAddress ?? syncDefaults.unauthenticated.perAddress
  return guardConnections(
    server,
    {
      maxConnections,
      unauthenticatedPerAddress: perAddress,
      unauthenticatedMs: settings.unauthenticated?.deadlineMs ?? syncDefaults.unauthenticated.deadlineMs,
      retryAfterSeconds: Math.ceil(heartbeatMs / 1000),
      refusal: (limit) =>
        limit === 'connections'
          ? `this relay holds ${maxConnections} connections already (sync.maxConnections); retry later`
          : `this address holds ${perAddress} connections without a token already (sync.unauthenticated.perAddress); send Authorization: Bearer <token> on the ones you have, or retry later`,
    },
    tls,
  )
}

/** Runs at most `n` of the calls given to it at once, the others in turn. */
function limiter(n: number): <T>(run: () => Promise<T>) => Promise<T> {
  let running = 0
  const waiting: (() => void)[] = []
  return async (run) => {
    // A finishing call hands its place to the next waiting one.
    if (running >= n) await new Promise<void>((r) => waiting.push(r))
    else running++
    try {
      return await run()
    } finally {
      const next = waiting.shift()
      if (next) next()
      else running--
    }
  }
}

function send(
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
