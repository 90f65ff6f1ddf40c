import { z } from 'zod'
import { ForwardTargetConfig, ForwardTargetName } from '../config'
import { method } from './define'
import { EventFilter } from './events'

/** Where one event stands with one target: queued, delivered (a 2xx), failing (retrying with
 * back-off), or given up (still failing after forward.maxAgeHours, or an authorization request). */
export const ForwardState = z.enum(['pending', 'delivered', 'failing', 'gave_up'])
export type ForwardState = z.infer<typeof ForwardState>

/** One HTTP attempt to a target, as recorded. */
export const ForwardAttempt = z.object({
  target: z.string(),
  attempt: z.number().int(),
  at: z.number(),
  /** The target's HTTP status; null when no answer came (time-out, connection refused). */
  status: z.number().int().nullable(),
  latencyMs: z.number().nullable(),
  error: z.string().nullable(),
  /** The first 2 KB of the target's answer body. */
  response: z.string().nullable(),
  /** A one-off replay of an edited payload. */
  edited: z.boolean(),
})
export type ForwardAttempt = z.infer<typeof ForwardAttempt>

/** One (event, target) row of the outbox. */
export const EventForward = z.object({
  target: z.string(),
  state: ForwardState,
  attempts: z.number().int(),
  /** When the next attempt is due (pending / failing). */
  dueAt: z.number().nullable(),
  lastAt: z.number().nullable(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  replay: z.boolean(),
  edited: z.boolean(),
})
export type EventForward = z.infer<typeof EventForward>

export const EventForwarding = z.object({
  id: z.string(),
  forwards: z.array(EventForward),
  /** Newest first, at most 100. */
  attempts: z.array(ForwardAttempt),
})
export type EventForwarding = z.infer<typeof EventForwarding>

export const ForwardTargetStatus = z.object({
  name: z.string(),
  url: z.string(),
  enabled: z.boolean(),
  /** `--forward-to URL` (this run only) rather than forward.targets.<name>. */
  adhoc: z.boolean(),
  events: z.array(z.string()),
  /** `original` passes the service's X-Service-Signature through; `target secret` re-signs. */
  signing: z.enum(['original', 'target secret']),
  /** ok: the last attempt succeeded (or none yet); failing: the last attempt failed (any answer
   * but a 2xx); stopped: the target answered 410 Gone and gets nothing until its URL changes or it
   * is enabled again (lastError says so). */
  health: z.enum(['ok', 'failing', 'stopped', 'disabled']),
  /** Delivered since this process started. */
  delivered: z.number().int(),
  /** Queued and not yet tried, or waiting for a retry. */
  pending: z.number().int(),
  /** Of those queued, how many have failed at least once. */
  failing: z.number().int(),
  gaveUp: z.number().int(),
  inFlight: z.number().int(),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
  lastOkAt: z.number().nullable(),
})
export type ForwardTargetStatus = z.infer<typeof ForwardTargetStatus>

export const ForwardStatus = z.object({
  targets: z.array(ForwardTargetStatus),
  authorizationBudgetMs: z.number().int(),
  /** The target whose answer to card.authorization.request is relayed (forward.authorizationTarget,
   * or the only / first subscribed one); null: the listener's fallback answers. */
  authorizationTarget: z.string().nullable(),
  /** Why that choice may not be what was meant (several subscribe, or the named one does not). */
  authorizationWarning: z.string().nullable(),
  /** Why forwarding cannot run (its database connection failed, its worker keeps stopping); null
   * while it runs. */
  problem: z.string().nullable(),
  /** The forward worker: `crash_loop` while it was started again more than 3 times within a minute
   * (nothing is forwarded meanwhile; `problem` gives the cause). */
  worker: z.object({
    health: z.enum(['ok', 'crash_loop']),
    restartsLastMinute: z.number().int(),
    lastError: z.string().nullable(),
    lastErrorAt: z.number().nullable(),
  }),
})
export type ForwardStatus = z.infer<typeof ForwardStatus>

/** A replay goes to a configured target by name, or to a URL (an ad hoc target). */
const ReplayDestination = z.union([
  z.object({ target: z.string().min(1).max(64) }).strict(),
  z.object({ url: z.string().url().max(2000) }).strict(),
])

export const forwardMethods = {
  'forward.status': method(
    'Forward targets with delivered / pending / failing counts and their last error',
    z.object({}).strict(),
    ForwardStatus,
  ),
  'forward.event': method(
    "One event's forwards (per target) and its attempts",
    z.object({ id: z.string().min(1).max(255) }).strict(),
    EventForwarding,
  ),
  'forward.states': method(
    'The overall forward state of each listed event (for the table): the worst over its targets',
    z.object({ ids: z.array(z.string().min(1).max(255)).max(1000) }).strict(),
    z.object({ states: z.record(z.string(), ForwardState) }),
  ),
  'forward.replay': method(
    'Queues stored events again (by id, or all matching a filter) for one target; through the outbox',
    z
      .object({
        ids: z.array(z.string().min(1).max(255)).max(1000).optional(),
        filter: EventFilter.optional(),
        destination: ReplayDestination,
        /** The filtered set is capped at 100,000 events. */
        limit: z.number().int().min(1).max(100_000).default(100_000),
      })
      .strict(),
    z.object({ queued: z.number().int(), target: z.string() }),
  ),
  'forward.replayEdited': method(
    'Sends an edited copy of one event once (signed with the target secret, or unsigned), marked as edited',
    z
      .object({
        id: z.string().min(1).max(255),
        body: z.string().max(1_000_000),
        destination: ReplayDestination,
      })
      .strict(),
    z.object({ queued: z.number().int(), target: z.string() }),
  ),
  'forward.targets.set': method(
    'Adds, changes or (with null) removes forward.targets.<name> in the saved configuration',
    z.object({ name: ForwardTargetName, target: ForwardTargetConfig.nullable() }).strict(),
    z.object({ targets: z.record(z.string(), ForwardTargetConfig) }),
  ),
}

export const forwardPushes = {
  /** Sent at most once a second while something changed. */
  'forward.status': ForwardStatus,
  /** Events whose overall forward state changed (batched). */
  'forward.states': z.object({ states: z.record(z.string(), ForwardState) }),
}
