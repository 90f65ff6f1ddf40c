import type {
  EventCursor,
  EventDetail,
  EventFilter,
  EventSummary,
  Rejection,
} from '../../shared/contract/events'
import type { Result } from '../../shared/result'
import type { Committer } from '../webhooks'

/** One event as the sync API carries it: everything a console needs to store it as its own
 * listener would (the body exactly as received, base64), and the cursor just after it. */
export interface SyncEvent {
  cursor: string
  id: string
  type: string
  createdAt: string
  receivedAt: number
  lastDeliveryAt: number
  deliveries: number
  endpoint: string | null
  dataId: string | null
  /** `JSON.stringify(envelope.data)` as the relay stored it. */
  data: string
  /** The raw body, base64. */
  body: string
}

export interface SyncPage {
  events: SyncEvent[]
  /** Where the next read starts: the last event's cursor, or `after` when nothing was new. */
  next: string
  /** Events after `next` already readable (only when asked: it costs a count). */
  remaining?: number
}

export interface RelayToken {
  name: string
  createdAt: number
  revokedAt: number | null
}

/** Tokens the sync API accepts. Only a SHA-256 of each token is stored; a revoked token fails the
 * very next check (every request checks the store, open streams at every heartbeat). */
export interface RelayTokens {
  /** Stores the hash of a new token under `name` (replacing a revoked one). */
  create(name: string, hash: string, at: number): Promise<Result<void>>
  list(): Promise<RelayToken[]>
  /** False when no live token has that name. */
  revoke(name: string, at: number): Promise<boolean>
  /** The name of the live token with this hash, or null. */
  nameOf(hash: string): Promise<string | null>
}

/** A relay's store: the listener writes through `committer`, consoles read through `readAfter`.
 * SQLite (one file, one writer) and PostgreSQL (shared by several relays) implement it. */
export interface RelayStore {
  kind: 'sqlite' | 'postgres'
  /** Where it is, safe to print (no password). */
  where: string
  committer: Committer
  /** Events after `after` in commit order; never skips one that commits later (see each store). */
  readAfter(after: string, limit: number, withRemaining?: boolean): Promise<Result<SyncPage>>
  /** Called (at least) after each commit that stored something; streams re-read then. */
  onCommitted(listener: () => void): () => void
  tokens: RelayTokens
  recentRejections(limit: number): Promise<Rejection[]>
  /** The console's usual reads, for `events --store`. */
  list(
    filter: EventFilter,
    after: EventCursor | undefined,
    limit: number,
  ): Promise<{ rows: EventSummary[]; next: EventCursor | null }>
  get(id: string): Promise<EventDetail | null>
  close(): Promise<void>
}

export const startCursor = '0'
