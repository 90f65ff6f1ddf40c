import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { syncPageLimit } from '../../shared/contract/sync'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import type { RelayStore } from './store'
import { createChangeFeed } from './change-feed'
import { presentPage } from './sync-query'
import { createStreamRegistry, guardSyncPort, limiter, startTokenHeartbeat } from './sync-limits'
import { routeSync, send } from './sync-routes'
import type { SyncRoutes } from './sync-routes'
import { syncDefaults } from './sync-settings'
import type { HealthReport, SyncServerSettings, SyncStreamStats } from './sync-settings'
import { streamPageSize } from './sync-stream'

export { syncDefaults } from './sync-settings'
export type { HealthReport, SyncServerSettings, SyncStreamStats } from './sync-settings'

export interface SyncServer {
  url: string
  port: number
  streams(): SyncStreamStats
  close(): Promise<void>
}

export const maxPageSize = syncPageLimit.max

/** The sync API consoles read a relay through. Every request needs a live relay token. The parts:
 * routing and authorisation (sync-routes.ts), the limits on streams and connections and the
 * token heartbeat (sync-limits.ts), one stream (sync-stream.ts); here they are put together on one
 * HTTP(S) server. */
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
  const streams = createStreamRegistry(settings)
  const server = createSyncHttpServer(settings)
  if (!server.ok) {
    feed.close()
    return server
  }
  const guard = guardSyncPort(server.value, settings, heartbeatMs, settings.tls !== undefined)
  const routes: SyncRoutes = {
    store,
    feed,
    streams,
    // Streams catching up read a page at a time, a few at once: a hundred followers reconnecting
    // together hold a few pages in memory, not a hundred.
    catchUpRead: limiter(4),
    heartbeatMs,
    pollMs,
    maxBufferedBytes: settings.maxBufferedBytes ?? syncDefaults.maxBufferedBytes,
    log,
    listenerStatus,
    metrics,
    health,
    guard,
  }
  server.value.on('request', (req: IncomingMessage, res: ServerResponse) => {
    routeSync(routes, req, res).catch((error: unknown) => {
      log.error('sync request failed', { path: req.url?.split('?')[0], error: (error as Error).message })
      send(res, 503, { error: 'the relay store cannot be read now; retry later' })
    })
  })
  const heartbeat = startTokenHeartbeat(store, streams.open, heartbeatMs)
  return listenSync(server.value, settings, {
    streams: () => streams.stats(feed.reads),
    close: () => {
      heartbeat.dispose()
      guard.stop()
      for (const s of streams.open) s.end()
      feed.close()
    },
  })
}

/** The HTTP(S) server with the listener's time-outs: a socket that sends no complete request
 * within 5 s is closed, an idle keep-alive one after 5 s, and no more than maxConnections are held
 * (guardSyncPort), so a slowloris on this port cannot take the file descriptors the webhook
 * listener needs. */
function createSyncHttpServer(settings: SyncServerSettings): Result<Server> {
  const timeouts = {
    headersTimeout: syncDefaults.headersTimeoutMs,
    requestTimeout: syncDefaults.requestTimeoutMs,
    keepAliveTimeout: syncDefaults.keepAliveTimeoutMs,
    connectionsCheckingInterval: 1_000,
  }
  if (!settings.tls) return ok(createServer(timeouts))
  try {
    return ok(
      // node:https (Node's TLS stack, about 40 ms of CPU) loads only for a TLS sync API.
      process.getBuiltinModule('node:https').createServer({
        ...timeouts,
        cert: readFileSync(settings.tls.certFile),
        key: readFileSync(settings.tls.keyFile),
      }),
    )
  } catch (error) {
    return err(
      'unavailable',
      `The sync API's TLS files cannot be read (${(error as Error).message}). Fix --tls-cert / --tls-key.`,
    )
  }
}

/** Listens; answers the running server, or why it cannot listen. `parts.close` ends what the
 * server holds besides its sockets. */
function listenSync(
  server: Server,
  settings: SyncServerSettings,
  parts: { streams(): SyncStreamStats; close(): void },
): Promise<Result<SyncServer>> {
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
          streams: parts.streams,
          close: () =>
            new Promise<void>((r) => {
              parts.close()
              server.close(() => r())
              server.closeAllConnections()
            }),
        }),
      )
    })
  })
}
