import { randomBytes } from 'node:crypto'
import type { RetentionState, RetentionTarget } from '../db/retention'
import type { Result } from '../../shared/result'
import type { Disposable } from '../../shared/disposable'
import type { Committer, EventStore } from '../webhooks'
import type { SyncEvent, SyncPage } from '../../shared/contract/sync'

export type { SyncEvent, SyncPage } from '../../shared/contract/sync'

/** The columns both stores read for the sync API (each adds what its cursor is made of). */
export const syncColumns =
  'seq, id, type, created_at, received_at, last_delivery_at, deliveries, endpoint, data_id, data, body, conflicts, conflict_body'

export interface SyncRow {
  seq: number
  id: string
  type: string
  created_at: string
  received_at: number
  last_delivery_at: number
  deliveries: number
  endpoint: string | null
  data_id: string | null
  data: string
  body: Buffer
  conflicts: number
  conflict_body: Buffer | null
}

export function toSyncEvent(row: SyncRow, cursor: string): SyncEvent {
  return {
    cursor,
    id: row.id,
    type: row.type,
    createdAt: row.created_at,
    receivedAt: row.received_at,
    lastDeliveryAt: row.last_delivery_at,
    deliveries: row.deliveries,
    endpoint: row.endpoint,
    dataId: row.data_id,
    data: row.data,
    body: row.body.toString('base64'),
    conflicts: row.conflicts,
    conflictBody: row.conflict_body?.toString('base64') ?? null,
  }
}

/** The console's reads of the event store (`events --store`), as promises: a relay's store may be
 * PostgreSQL. */
type Promised<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never
}
type EventReads = Promised<Pick<EventStore, 'list' | 'get' | 'recentRejections'>>

/** What a relay token opens: `metrics` only GET /metrics (for Prometheus), `read` the sync API and
 * /metrics (consoles; what every token made before scopes existed keeps), `admin` all of it and
 * whatever administration the relay gains. */
export const tokenScopes = ['read', 'metrics', 'admin'] as const
export type TokenScope = (typeof tokenScopes)[number]

/** Whether a token of scope `has` may do what needs `need`. */
export function scopeAllows(has: TokenScope, need: TokenScope): boolean {
  if (has === 'admin') return true
  if (has === 'read') return need === 'read' || need === 'metrics'
  return need === 'metrics'
}

export interface RelayToken {
  name: string
  createdAt: number
  revokedAt: number | null
  scope: TokenScope
}

/** How a relay's streams learn that something committed (said at start and on /healthz). */
export interface Wakeups {
  mode: 'in-process' | 'notify' | 'poll'
  detail: string
}

/** Tokens the sync API accepts. Only a SHA-256 of each token is stored; a revoked token fails the
 * very next check (every request checks the store, open streams at every heartbeat). */
export interface RelayTokens {
  /** Stores the hash of a new token under `name` (replacing a revoked one). */
  create(name: string, hash: string, at: number, scope: TokenScope): Promise<Result<void>>
  list(): Promise<RelayToken[]>
  /** False when no live token has that name. */
  revoke(name: string, at: number): Promise<boolean>
  /** The live token with this hash, or null. */
  lookup(hash: string): Promise<{ name: string; scope: TokenScope } | null>
}

/** A relay's store: the listener writes through `committer`, consoles read through `readAfter`.
 * SQLite (one file, one writer) and PostgreSQL (shared by several relays) implement it. */
export interface RelayStore extends EventReads {
  kind: 'sqlite' | 'postgres'
  /** Where it is, safe to print (no password). */
  where: string
  /** How streams are woken after commits of this relay and of others on the same store. */
  wakeups(): Wakeups
  committer: Committer
  /** Events after `after` in commit order; never skips one that commits later (see each store). */
  readAfter(after: string, limit: number, withRemaining?: boolean): Promise<Result<SyncPage>>
  /** This store's identity: random, made the first time a relay opened it, kept in the store (a
   * recreated store has a new one; a copy or a restored backup keeps it). Part of every cursor. */
  identity: string
  /** What the store holds at a raw position (as `readAfter` takes it), to check a cursor: the id of
   * the event there (null: none, e.g. moved by a conflict or removed by retention) and whether the
   * position lies beyond the newest event the store holds. A malformed position: bad_request. */
  positionFacts(position: string): Promise<Result<{ idAt: string | null; pastEnd: boolean }>>
  /** The newest (in the sync order, and readable now) of these event ids and its raw position, or
   * null when the store holds none of them: where a console re-anchors. */
  positionOfNewest(ids: string[]): Promise<{ id: string; position: string } | null>
  /** Called (at least) after each commit that stored something; streams re-read then. */
  onCommitted(listener: () => void): Disposable
  tokens: RelayTokens
  /** Where retention removes old rows (docs/storage.md#retention), and its stored state. */
  retention?: RetentionTarget & { load(): Promise<RetentionState> }
  close(): Promise<void>
}

export const startCursor = '0'

/** A new store identity: 10 characters of [0-9a-z] (about 51 bits), safe in a URL and a cursor. */
export function newStoreIdentity(): string {
  return randomBytes(8).readBigUInt64BE().toString(36).padStart(13, '0').slice(-10)
}

/** The code a commit past its deadline fails with (the storage status says "stalled"). Here, not in
 * pg-store.ts, so that reading it does not load the PostgreSQL client. */
export const stalledCode = 'STALLED'
