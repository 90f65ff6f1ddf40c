import type { Server } from 'node:http'
import type { SyncCursorProblem } from '../../shared/contract/sync'
import { guardConnections } from '../transport/connection-guard'
import type { ConnectionGuard } from '../transport/connection-guard'
import type { RelayStore } from './store'
import { authorize } from './tokens'
import type { SyncServerSettings, SyncStreamStats } from './sync-settings'
import { syncDefaults } from './sync-settings'

/** One open stream as the sync port's limits and heartbeat see it. */
export interface OpenStream {
  token: string
  buffered(): number
  authorization: string
  live: boolean
  beat(): void
  revoke(): void
  end(): void
}

/** The streams a sync port holds, the places taken by streams still opening, and the counters
 * `/metrics` and `streams()` read. The one writer of them all. */
export interface StreamRegistry {
  readonly open: Set<OpenStream>
  /** Takes a place for a stream of `token` (streams opened at the same moment cannot all pass
   * the limit), or answers the 429's text when `sync.maxStreams` is reached. */
  reserve(token: string): { ok: true; release(): void } | { ok: false; error: string }
  /** A live stream was cut back to catching up. */
  noteCut(): void
  /** A cursor was answered 409. */
  noteRefusal(problem: SyncCursorProblem): void
  stats(feedReads: number): SyncStreamStats
}

export function createStreamRegistry(settings: SyncServerSettings): StreamRegistry {
  const perToken = settings.maxStreams?.perToken ?? syncDefaults.maxStreams.perToken
  const perRelay = settings.maxStreams?.perRelay ?? syncDefaults.maxStreams.perRelay
  const open = new Set<OpenStream>()
  /** Streams being opened (their first read running), by token name. */
  const opening = new Map<string, number>()
  let cut = 0
  const cursorRefusals: Record<SyncCursorProblem, number> = {
    'other-store': 0,
    'past-end': 0,
    'replaced-event': 0,
  }
  return {
    open,
    reserve(token) {
      const ofToken = [...open].filter((s) => s.token === token).length + (opening.get(token) ?? 0)
      if (open.size + [...opening.values()].reduce((a, b) => a + b, 0) >= perRelay)
        return {
          ok: false,
          error: `this relay already serves ${perRelay} streams (sync.maxStreams.perRelay); retry later or raise it`,
        }
      if (ofToken >= perToken)
        return {
          ok: false,
          error: `the token "${token}" already has ${perToken} open streams (sync.maxStreams.perToken); close one, use another token, or raise it`,
        }
      opening.set(token, (opening.get(token) ?? 0) + 1)
      return {
        ok: true,
        release: () => {
          const n = (opening.get(token) ?? 1) - 1
          if (n > 0) opening.set(token, n)
          else opening.delete(token)
        },
      }
    },
    noteCut: () => void cut++,
    noteRefusal: (problem) => void cursorRefusals[problem]++,
    stats(feedReads) {
      const live = [...open].filter((s) => s.live).length
      const buffered = [...open].reduce((sum, s) => sum + s.buffered(), 0)
      return {
        live,
        catchingUp: open.size - live,
        cut,
        feedReads,
        buffered,
        cursorRefusals: { ...cursorRefusals },
      }
    },
  }
}

/** One token check per token (not per stream) each heartbeat; a revoked token's streams end.
 * Answers the interval's disposer. */
export function startTokenHeartbeat(
  store: RelayStore,
  open: Set<OpenStream>,
  heartbeatMs: number,
): { dispose(): void } {
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
  return { dispose: () => clearInterval(heartbeat) }
}

/** The sync port's connection limits (docs/reliability.md, "Bounded against any peer"). */
export function guardSyncPort(
  server: Server,
  settings: SyncServerSettings,
  heartbeatMs: number,
  tls: boolean,
): ConnectionGuard {
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
export function limiter(n: number): <T>(run: () => Promise<T>) => Promise<T> {
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
