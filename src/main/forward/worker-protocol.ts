/** The forward worker's messages, imported (as types) by both sides: host.ts posts `ToWorker`
 * and reads `FromWorker`; worker.ts the other way round. */
import type { ForwardState, ForwardTargetStatus } from '../../shared/contract/forward'
import type { ForwardTarget } from './targets'
import type { TargetSettings } from './dispatcher'

export interface ForwardWorkerData {
  /** The database file (already created and migrated by the main connection). */
  file: string
  owner: string
  pollMs: number
  /** This process holds the instance lock: leases left by a killed run are freed at start. */
  exclusive: boolean
  /** Whether anyone reads the attempts (the `listen` lines): else they are not posted back. */
  reportAttempts: boolean
}

/** An attempt as the worker reports it (the target by name). */
export interface AttemptMessage {
  target: string
  /** The outbox row tried (a replay tells its own rows from others queued for the target). */
  outboxId: number
  /** When the row was queued (for a first delivery: when the event was committed). */
  queuedAt: number
  /** When the next attempt is due (state failing); null otherwise. */
  dueAt: number | null
  /** The target stopped after this answer (410 Gone). */
  stopped: boolean
  eventId: string
  type: string
  attempt: number
  status: number | null
  latencyMs: number
  error: string | null
  state: ForwardState
  edited: boolean
  replay: boolean
}

export type ToWorker =
  | { kind: 'targets'; targets: ForwardTarget[]; maxAgeMs: number; settings: TargetSettings }
  /** Webhook secrets by endpoint id: the original X-Service-Signature is recomputed with them. */
  | { kind: 'secrets'; secrets: [string, Uint8Array][] }
  | { kind: 'relay'; id: number; seq: number; budgetMs: number }
  | { kind: 'kick' }
  | { kind: 'stop' }

export type FromWorker =
  | { kind: 'attempts'; attempts: AttemptMessage[] }
  | { kind: 'states'; states: Record<string, ForwardState> }
  | { kind: 'status'; targets: ForwardTargetStatus[] }
  | {
      kind: 'relayed'
      id: number
      answer: { status: number; body: Uint8Array; contentType: string | null } | null
    }
  | { kind: 'storage'; what: string; code: string | null; message: string }
  | { kind: 'log'; level: 'info' | 'warn' | 'error'; msg: string; fields: Record<string, unknown> }
  | { kind: 'stopped'; queued: number }
