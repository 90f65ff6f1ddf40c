/** The forward worker's calls, events and data, imported (as types) by both sides: host.ts and
 * worker.ts. */
import type { ForwardState, ForwardTargetStatus } from '../../shared/contract/forward'
import type { ForwardTarget } from './targets'
import type { TargetSettings } from './targets'

export interface ForwardWorkerData {
  /** The database file (already created and migrated by the main connection). */
  file: string
  owner: string
  /** This process holds the instance lock: leases left by a killed run are freed at start. */
  exclusive: boolean
  /** Which attempts the host reads: all (the `listen` lines), only the failed ones (the failure
   * meter: a delivered attempt then costs the listener's thread nothing), or none. */
  reportAttempts: 'all' | 'failed' | 'none'
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

/** The forward worker's calls (src/main/workers/ carries them). */
export type ForwardCalls = {
  targets(message: { targets: ForwardTarget[]; maxAgeMs: number; settings: TargetSettings }): void
  /** Webhook secrets by endpoint id: the original X-Service-Signature is recomputed with them. */
  secrets(secrets: [string, Uint8Array][]): void
  kick(): void
  relay(message: { seq: number; budgetMs: number }): RelayAnswerMessage | null
  /** Lets the attempts under way finish and records them; how many forwards stay queued. */
  stop(): number
}

export type RelayAnswerMessage = { status: number; body: Uint8Array; contentType: string | null }

/** What the worker tells unasked, each when it happens (no timer, no polling). */
export type ForwardEvent =
  | { kind: 'attempts'; attempts: AttemptMessage[] }
  | { kind: 'states'; states: Record<string, ForwardState> }
  | { kind: 'status'; targets: ForwardTargetStatus[] }
  | { kind: 'storage'; what: string; code: string | null; message: string }
