/** The circuit breaker and the verdict on one attempt, as a pure unit: no I/O, no clock of its
 * own, no mutation (each function returns the next health). The dispatcher holds one `Health`
 * per target and asks these functions what may start, when, and what an answer means. */
import type { ForwardState } from '../../shared/contract/forward'
import { retryDelay } from './schedule.ts'

export interface Health {
  consecutiveFailures: number
  /** Pauses in a row; the n-th lasts the n-th step of the target's retry schedule. */
  blockSteps: number
  blockedUntil: number
  /** When the last attempt to it started (clock ms). */
  lastStartAt: number
  /** The target answered 410 Gone: nothing more is sent until its URL changes, it is enabled
   * again or the process restarts (its queue is kept). The sentence says so. */
  stopped: string | null
  /** It answered 2xx after failing: its failing rows are due now (the recorder does it). */
  recovered: boolean
  delivered: number
  gaveUp: number
  lastError: string | null
  lastErrorAt: number | null
  lastOkAt: number | null
}

export interface BreakerTarget {
  name: string
  url: string
  enabled: boolean
  concurrency: number
  retrySchedule: readonly number[]
}

/** Failures in a row after which a target is probed with one request at a time, on its schedule. */
export const failingAfter = 3
/** A target answering this says the endpoint is gone for good: stop sending, say so. */
export const gone = 410
/** The one type relayed synchronously (spec 6.1). */
export const authorizationRequestType = 'card.authorization.request'

export const freshHealth = (): Health => ({
  consecutiveFailures: 0,
  blockSteps: 0,
  blockedUntil: 0,
  lastStartAt: 0,
  stopped: null,
  recovered: false,
  delivered: 0,
  gaveUp: 0,
  lastError: null,
  lastErrorAt: null,
  lastOkAt: null,
})

/** A target's health after its settings changed: a stopped (410) or paused target starts again
 * when the operator changed its URL or enabled it again. */
export function healthAfterChange(health: Health, before: BreakerTarget, after: BreakerTarget): Health {
  const restart = before.url !== after.url || (!before.enabled && after.enabled)
  return restart
    ? { ...health, stopped: null, consecutiveFailures: 0, blockSteps: 0, blockedUntil: 0 }
    : health
}

/** What may start now: `limit` attempts at once (one while probing: then its earliest-due row is
 * taken, due or not), or null when nothing may (disabled, stopped, paused). */
export function admission(
  health: Health,
  target: BreakerTarget,
  inFlight: number,
  now: number,
  probeMs: number,
): { limit: number; probing: boolean } | null {
  if (!target.enabled || health.stopped !== null || now < health.blockedUntil) return null
  // A failing target is probed with one request at a time (a row's own back-off must not keep a
  // target that answers again waiting); so is one whose last attempt failed and that had no
  // attempt for probeMs (its rows wait on their schedule).
  const probing =
    health.consecutiveFailures >= failingAfter ||
    (health.consecutiveFailures > 0 && inFlight === 0 && now - health.lastStartAt >= probeMs)
  return { limit: probing ? 1 : target.concurrency, probing }
}

/** The earliest time `admission` changes its mind by the clock alone (a pause ends, a probe is
 * due), or null: the dispatcher sleeps until then, or until a row is due or a kick. */
export function nextAdmissionAt(
  health: Health,
  target: BreakerTarget,
  now: number,
  probeMs: number,
): number | null {
  if (!target.enabled || health.stopped !== null) return null
  if (now < health.blockedUntil) return health.blockedUntil
  if (health.consecutiveFailures > 0 && health.consecutiveFailures < failingAfter)
    return health.lastStartAt + probeMs
  return null
}

export interface Answer {
  status: number | null
  error: string | null
  latencyMs: number
}

export interface AttemptContext {
  now: number
  /** Set for the authorizer's relay: an answer later than this came after the fallback. */
  relayBudgetMs: number | null
  authorizer: string | null
  maxAgeMs: number
  probeMs: number
}

export interface Verdict {
  health: Health
  state: ForwardState
  /** When the row is due next (state failing). */
  dueAt: number
  error: string | null
  /** This answer stopped the target (410): its claimed rows go back to the outbox. */
  stoppedNow: boolean
}

/** What one answer means for the row and the target. Every answer but a 2xx says the target is
 * not taking events (a 3xx, 4xx or 5xx, a time-out, a refused connection): the whole target backs
 * off, not just the row. Answers of requests sent together count once: the pause grows per probe. */
export function judge(
  before: Health,
  target: BreakerTarget,
  row: { type: string; attempt: number; createdAt: number },
  answer: Answer,
  c: AttemptContext,
): Verdict {
  const { now } = c
  const ok = answer.error === null
  let error = answer.error
  if (c.relayBudgetMs !== null && answer.latencyMs > c.relayBudgetMs) {
    const late = `answered after the ${c.relayBudgetMs} ms authorization budget: the listener sent the fallback answer`
    error = error ? `${error}; ${late}` : late
  }
  const h: Health = { ...before }
  let stoppedNow = false
  if (ok) {
    h.delivered++
    if (h.consecutiveFailures > 0) h.recovered = true
    h.consecutiveFailures = 0
    h.blockSteps = 0
    h.blockedUntil = 0
    h.lastOkAt = now
  } else {
    h.consecutiveFailures++
    if (h.consecutiveFailures >= failingAfter && now >= h.blockedUntil) {
      h.blockSteps++
      // Never longer than probeMs: a target that answers again is retried within that time.
      h.blockedUntil = now + Math.min(retryDelay(target.retrySchedule, h.blockSteps), c.probeMs)
    }
    if (answer.status === gone && h.stopped === null) {
      h.stopped = `${target.url} answered 410 Gone: the app says this endpoint no longer exists. Forwarding to ${target.name} stopped; its queued events are kept. Fix the URL (or disable and enable the target) to resume.`
      stoppedNow = true
    }
  }
  let state: ForwardState
  let dueAt = now
  if (ok) state = 'delivered'
  else if (row.type === authorizationRequestType) {
    // The service needed its answer within 2 s: never retried, neither by the authorizer nor by
    // a target that got it as a notification.
    state = 'gave_up'
    error =
      target.name === c.authorizer
        ? `${error} (an authorization request is not retried: the service needed its answer within 2 s)`
        : `${error} (an authorization request is sent to a notified target once, never retried)`
  } else if (now - row.createdAt >= c.maxAgeMs) state = 'gave_up'
  else {
    state = 'failing'
    // Not before the target's pause ends (its next probe).
    dueAt = Math.max(now + retryDelay(target.retrySchedule, row.attempt), h.blockedUntil)
  }
  if (!ok) {
    h.lastError = h.stopped ?? error
    h.lastErrorAt = now
  }
  if (state === 'gave_up') h.gaveUp++
  return { health: h, state, dueAt, error, stoppedNow }
}
