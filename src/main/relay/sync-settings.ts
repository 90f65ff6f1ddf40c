import type { SyncCursorProblem } from '../../shared/contract/sync'

// The sync port's settings and defaults, what `/healthz` answers, and the stream counters:
// shared by the server, its routes, limits and streams.

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
