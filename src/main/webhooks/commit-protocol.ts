/** The commit worker's calls and data (types, and the reply's `compactReply`), used by both sides: src/main/webhooks/committer.ts
 * (the host) and src/main/webhooks/commit-worker.ts (the worker). */
import type { Rejection } from '../../shared/contract/events'
import type { CommitHook } from '../db/commit-hooks'
import type { PruneStatement } from '../db/retention'
import type { PackedEvents } from './commit-wire'
import type { CommittedRow, EventParams } from './sql'

export interface CommitWorkerData {
  /** The database file (the main connection has already created and migrated it). */
  file: string
  busyTimeoutMs: number
  /** Statements run after each event's upsert, in the same transaction (and the event's own
   * savepoint), binding `CommitHookParams`: a capability that must write with the event
   * atomically (the forward outbox) adds its hook here. Checked as the worker prepares them. */
  hooks: readonly CommitHook[]
  /** Group commit: a transaction starts at most once per this many ms while deliveries keep
   * coming (src/main/workers/serve.ts `batchIntervalMs`). */
  batchIntervalMs: number
}

/** Why nothing of a transaction was committed: the disk, the lock or the file, not the data.
 * `code` is SQLite's extended code (`SQLITE_FULL`, `SQLITE_BUSY`, `SQLITE_IOERR_WRITE`) when known. */
export interface StorageFailure {
  code: string | null
  message: string
}

/** One delivery of a committed transaction: its row, or why this delivery alone can never be
 * stored (the others of its transaction were). */
/** A failed item is refused alone: 400 (it can never be stored), or 503 when `retryable` (its row
 * is locked by another session now; a redelivery will go through). */
export type ItemResult =
  { ok: true; row: CommittedRow } | { ok: false; code: string | null; message: string; retryable?: boolean }

/** One delivery as the commit worker answers it: a first delivery by its seq alone (its row is the
 * delivery the listener holds: `insertedSummary`), a redelivery with the row as stored, or why it
 * alone cannot be stored. */
export type CommittedItem = { ok: true; inserted: number } | ItemResult

export interface CommitRequest {
  id: number
  events: EventParams[]
  rejections: Rejection[]
}

export type CommitReply =
  { id: number; ok: true; items: ItemResult[] } | { id: number; ok: false; failure: StorageFailure }

/** A commit transaction's answer to one request (items in the order of its events); a request
 * whose events were all first deliveries, given consecutive seqs, as the first seq and the count
 * (`compactReply`). */
export type CommittedReply =
  | { id: number; ok: true; items: CommittedItem[] }
  | { id: number; ok: true; insertedFrom: number; count: number }
  | { id: number; ok: false; failure: StorageFailure }

/** The usual group (one writer: each insert's rowid the one after the last) answered as its first
 * seq and count: one small object through the thread boundary instead of one per delivery, cloned
 * by the worker and again by the listener's thread (issue 35). Any other group item by item. */
export function compactReply(id: number, items: CommittedItem[]): CommittedReply {
  const first = items[0]
  if (first === undefined || !('inserted' in first)) return { id, ok: true, items }
  for (let i = 1; i < items.length; i++) {
    const item = items[i]!
    if (!('inserted' in item) || item.inserted !== first.inserted + i) return { id, ok: true, items }
  }
  return { id, ok: true, insertedFrom: first.inserted, count: items.length }
}

export type { PruneStatement }

export type PruneReply = { ok: true; changes: number } | { ok: false; failure: StorageFailure }

/** The commit worker's calls (src/main/workers/ carries them). `commit` is answered in batches:
 * every commit that queued up while a transaction ran goes into the next one, one fsync for all. */
export type CommitCalls = {
  /** The events packed (./commit-wire.ts): one string and one transferred buffer per group. */
  commit(request: { events: PackedEvents; rejections: Rejection[] }): CommittedReply
  /** A retention batch, queued with the commits so the one writer runs it between them. */
  prune(statements: PruneStatement[]): PruneReply
  /** Marks the listener run alive (or writes a probe row when `run` is null): a small commit that
   * also proves the database takes writes again after a fault. */
  alive(request: { run: number | null; at: number }): StorageFailure | null
}
