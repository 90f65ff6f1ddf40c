import { createHmac } from 'node:crypto'
import type { Agent } from 'node:http'
import type { ForwardState, ForwardTargetStatus } from '../../shared/contract/forward'
import type { PollClock } from '../../shared/clock'
import type { Logger } from '../log'
import { agentFor, deliver, responseKeptBytes } from './deliver.ts'
import type { DeliveryOutcome } from './deliver.ts'
import { typeMatches } from './patterns.ts'
import { retryDelay } from './schedule.ts'
import type { AttemptRecord, ClaimedForward, ForwardStore } from './store.ts'
import type { ForwardTarget } from './targets.ts'
import type { AttemptMessage } from './worker-protocol.ts'

/** Runtime imports carry their `.ts` extension: the forward worker runs this file directly under
 * vitest (Node strips the types), and the bundler resolves it for the built app. */

/** One finished attempt, for the `listen` output and the live states. */
export interface AttemptReport extends Omit<AttemptMessage, 'target'> {
  target: ForwardTarget
}

export interface RelayAnswer {
  status: number
  body: Buffer
  contentType: string | null
}

export interface DispatcherOptions {
  store: ForwardStore
  clock: PollClock
  log: Logger
  /** Marks this process's leases. */
  owner: string
  maxAgeMs: () => number
  /** The service's X-Service-Signature for a stored body (recomputed with the endpoint's secret,
   * which gives the very header the service sent); null when that secret is gone. */
  originalSignature: (endpoint: string | null, body: Buffer) => string | null
  onAttempt?: (report: AttemptReport) => void
  /** After attempts were recorded: the overall state of their events. */
  onStates?: (states: Record<string, ForwardState>) => void
  storageFailed?: (what: string, error: unknown) => void
  /** How often the outbox is looked at for due rows (ms of `clock`). */
  pollMs?: number
}

/** What applies to all targets: who answers authorizations, how often a paused target is probed. */
export interface TargetSettings {
  /** The target whose answer to card.authorization.request is relayed (see `authorizerOf`). */
  authorizer: string | null
  probeMs: number
}

export const defaultProbeMs = 10_000

export interface Dispatcher {
  setTargets(targets: ForwardTarget[], settings?: TargetSettings): void
  targets(): ForwardTarget[]
  /** Looks at the outbox now (new rows were committed). */
  kick(): void
  /** card.authorization.request: sends the event to the authorizer and, once each as a
   * notification, to the other subscribed targets; resolves with the authorizer's answer if it comes
   * within `budgetMs`, else null (the fallback). */
  relay(seq: number, budgetMs: number): Promise<RelayAnswer | null>
  status(): ForwardTargetStatus[]
  /** Attempts under way plus claimed rows about to start (not those of a target pausing). */
  busy(): number
  /** Stops claiming, lets the attempts under way finish and records them; claimed rows not yet
   * tried go back to the outbox (pending for the next run). */
  stop(): Promise<void>
}

interface Runtime {
  target: ForwardTarget
  agent: Agent
  queue: ClaimedForward[]
  inFlight: number
  delivered: number
  gaveUp: number
  consecutiveFailures: number
  /** Pauses in a row; the n-th lasts the n-th step of the target's retry schedule. */
  blockSteps: number
  blockedUntil: number
  lastError: string | null
  lastErrorAt: number | null
  lastOkAt: number | null
  recovered: boolean
  /** When the last attempt to it started (clock ms). */
  lastStartAt: number
  /** The target answered 410 Gone: nothing more is sent until its URL changes, it is enabled
   * again or the process restarts (its queue is kept). */
  stopped: string | null
}

/** Failures in a row after which a target is probed with one request at a time, on its schedule. */
const failingAfter = 3
/** A target answering this says the endpoint is gone for good: stop sending, say so. */
const gone = 410
const relayKeptBytes = 64 * 1024
const flushAt = 256
/** The one type relayed synchronously (spec 6.1); kept here so the worker imports nothing else. */
const authorizationRequestType = 'card.authorization.request'

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, clock, log, owner } = options
  const pollMs = options.pollMs ?? 50
  const runtimes = new Map<string, Runtime>()
  let settings: TargetSettings = { authorizer: null, probeMs: defaultProbeMs }
  const running = new Set<Promise<void>>()
  let results: AttemptRecord[] = []
  let resultIds: string[] = []
  const changedIds = new Set<string>()
  let statesAt = 0
  let stopped = false
  let cancelPoll: (() => void) | null = null
  let soonScheduled = false

  const failed = (what: string, error: unknown) => {
    if (options.storageFailed) options.storageFailed(what, error)
    else log.error(what, { error })
  }

  function runtimeFor(target: ForwardTarget, previous?: Runtime): Runtime {
    const sameAgent =
      previous && previous.target.url === target.url && previous.target.concurrency === target.concurrency
    if (previous && !sameAgent) previous.agent.destroy()
    // A stopped target (410) starts again when the operator changed its URL or enabled it again.
    const restart =
      previous && (previous.target.url !== target.url || (!previous.target.enabled && target.enabled))
    const agent = sameAgent ? previous.agent : agentFor(target.url, target.concurrency)
    // Updated in place, never copied: the attempts in flight settle on this object (see start), and
    // a copy would keep their slots taken for good (the target would never claim again).
    if (previous)
      return Object.assign(
        previous,
        restart ? { stopped: null, consecutiveFailures: 0, blockSteps: 0, blockedUntil: 0 } : {},
        { target, agent },
      )
    return {
      queue: [],
      inFlight: 0,
      delivered: 0,
      gaveUp: 0,
      consecutiveFailures: 0,
      blockSteps: 0,
      blockedUntil: 0,
      lastError: null,
      lastErrorAt: null,
      lastOkAt: null,
      recovered: false,
      lastStartAt: 0,
      stopped: null,
      target,
      agent,
    }
  }

  function schedulePoll(): void {
    cancelPoll?.()
    cancelPoll = stopped ? null : clock.after(pollMs, tick)
  }

  function soon(): void {
    if (soonScheduled || stopped) return
    soonScheduled = true
    setImmediate(() => {
      soonScheduled = false
      fill()
    })
  }

  function tick(): void {
    cancelPoll = null
    if (stopped) return
    flush()
    fill()
    schedulePoll()
  }

  /** Starts attempts up to each target's concurrency, claiming due rows in small batches. */
  function fill(): void {
    if (stopped) return
    const now = clock.now()
    for (const rt of runtimes.values()) {
      const t = rt.target
      if (!t.enabled || rt.stopped !== null || now < rt.blockedUntil) continue
      // A failing target is probed with one request at a time: its earliest-due row, due or not
      // (a row's own back-off must not keep a target that answers again waiting). So is one whose
      // last attempt failed and that had no attempt for probeMs (its rows wait on their schedule).
      const probing =
        rt.consecutiveFailures >= failingAfter ||
        (rt.consecutiveFailures > 0 && rt.inFlight === 0 && now - rt.lastStartAt >= settings.probeMs)
      const limit = probing ? 1 : t.concurrency
      if (rt.queue.length === 0 && rt.inFlight < limit) {
        const batch = Math.min(64, t.concurrency * 4)
        const rounds = Math.ceil(batch / t.concurrency) + 1
        try {
          rt.queue = store.claim(
            t.name,
            probing ? 1 : batch,
            now,
            now + t.timeoutMs * rounds + 30_000,
            owner,
            probing ? Number.MAX_SAFE_INTEGER : now,
          )
        } catch (error) {
          failed('forward outbox claim', error)
          return
        }
      }
      while (rt.inFlight < limit && rt.queue.length > 0) start(rt, rt.queue.shift()!, null)
    }
  }

  function headersFor(rt: Runtime, row: ClaimedForward, body: Buffer): Record<string, string> {
    const t = rt.target
    const signature = t.secret
      ? createHmac('sha256', t.secret).update(body).digest('hex')
      : row.editedBody
        ? null
        : options.originalSignature(row.endpoint, body)
    return {
      'content-type': 'application/json',
      ...t.headers,
      'x-watchdesk-event-id': row.eventId,
      'x-watchdesk-attempt': String(row.attempt),
      'x-watchdesk-target': t.name,
      ...(row.replay ? { 'x-watchdesk-replay': '1' } : {}),
      ...(row.editedBody ? { 'x-watchdesk-edited': '1' } : {}),
      ...(signature ? { 'x-service-signature': signature } : {}),
    }
  }

  /** One attempt; `relayBudgetMs` set for the authorizer's relay (64 KB of the answer kept). */
  function start(rt: Runtime, row: ClaimedForward, relayBudgetMs: number | null): Promise<DeliveryOutcome> {
    const t = rt.target
    const body = row.editedBody ?? row.body
    rt.inFlight++
    const at = clock.now()
    rt.lastStartAt = at
    const attempt = deliver({
      url: t.url,
      body,
      headers: headersFor(rt, row, body),
      timeoutMs: t.timeoutMs,
      agent: rt.agent,
      keepBytes: relayBudgetMs === null ? responseKeptBytes : relayKeptBytes,
    })
    const done = attempt.then((outcome) => {
      rt.inFlight--
      settle(rt, row, at, outcome, relayBudgetMs)
      soon()
    })
    running.add(done)
    void done.finally(() => running.delete(done))
    return attempt
  }

  function settle(
    rt: Runtime,
    row: ClaimedForward,
    at: number,
    outcome: DeliveryOutcome,
    relayBudgetMs: number | null,
  ): void {
    const now = clock.now()
    const ok = outcome.error === null
    let error = outcome.error
    if (relayBudgetMs !== null && outcome.latencyMs > relayBudgetMs) {
      const late = `answered after the ${relayBudgetMs} ms authorization budget: the listener sent the fallback answer`
      error = error ? `${error}; ${late}` : late
    }
    let state: ForwardState
    let dueAt = now
    // Every answer but a 2xx says the target is not taking events (a 3xx, 4xx or 5xx, a time-out,
    // a refused connection): back off the whole target, not just the row. Answers of requests
    // sent together count once: the pause grows per probe, not per request.
    if (ok) {
      rt.delivered++
      if (rt.consecutiveFailures > 0) rt.recovered = true
      rt.consecutiveFailures = 0
      rt.blockSteps = 0
      rt.blockedUntil = 0
      rt.lastOkAt = now
    } else {
      rt.consecutiveFailures++
      if (rt.consecutiveFailures >= failingAfter && now >= rt.blockedUntil) {
        rt.blockSteps++
        // Never longer than probeMs: a target that answers again is retried within that time.
        rt.blockedUntil = now + Math.min(retryDelay(rt.target.retrySchedule, rt.blockSteps), settings.probeMs)
      }
      if (outcome.status === gone && rt.stopped === null) {
        rt.stopped = `${rt.target.url} answered 410 Gone: the app says this endpoint no longer exists. Forwarding to ${rt.target.name} stopped; its queued events are kept. Fix the URL (or disable and enable the target) to resume.`
        log.warn('a forward target answered 410 Gone; forwarding to it stopped', { target: rt.target.name })
        // Rows claimed but not started go back to the outbox: queued for when it resumes.
        try {
          store.release(rt.queue.splice(0).map((r) => r.id))
        } catch (error) {
          failed('forward outbox release', error)
        }
      }
    }
    if (ok) state = 'delivered'
    else if (row.type === authorizationRequestType) {
      // The service needed its answer within 2 s: never retried, neither by the authorizer nor by
      // a target that got it as a notification.
      state = 'gave_up'
      error =
        rt.target.name === settings.authorizer
          ? `${error} (an authorization request is not retried: the service needed its answer within 2 s)`
          : `${error} (an authorization request is sent to a notified target once, never retried)`
    } else if (now - row.createdAt >= options.maxAgeMs()) state = 'gave_up'
    else {
      state = 'failing'
      // Not before the target's pause ends (its next probe).
      dueAt = Math.max(now + retryDelay(rt.target.retrySchedule, row.attempt), rt.blockedUntil)
    }
    if (!ok) {
      rt.lastError = rt.stopped ?? error
      rt.lastErrorAt = now
    }
    if (state === 'gave_up') rt.gaveUp++
    results.push({
      outboxId: row.id,
      seq: row.seq,
      target: rt.target.name,
      attempt: row.attempt,
      at,
      status: outcome.status,
      latencyMs: outcome.latencyMs,
      error,
      response:
        outcome.response.length > 0 ? outcome.response.subarray(0, responseKeptBytes).toString('utf8') : null,
      edited: row.editedBody !== null,
      state,
      dueAt,
    })
    resultIds.push(row.eventId)
    options.onAttempt?.({
      target: rt.target,
      outboxId: row.id,
      queuedAt: row.createdAt,
      dueAt: state === 'failing' ? dueAt : null,
      stopped: rt.stopped !== null,
      eventId: row.eventId,
      type: row.type,
      attempt: row.attempt,
      status: outcome.status,
      latencyMs: outcome.latencyMs,
      error,
      state,
      edited: row.editedBody !== null,
      replay: row.replay,
    })
    if (results.length >= flushAt) flush()
  }

  /** Records finished attempts in one transaction; kept for the next tick when it fails. */
  function flush(): void {
    const recovered = [...runtimes.values()].filter((rt) => rt.recovered)
    if (results.length === 0 && recovered.length === 0) return
    const batch = results
    const ids = resultIds
    try {
      store.record(batch)
      for (const rt of recovered) {
        store.dueNow(rt.target.name, clock.now())
        rt.recovered = false
      }
    } catch (error) {
      failed('forward attempts record', error)
      return
    }
    results = []
    resultIds = []
    for (const id of ids) changedIds.add(id)
    publishStates()
  }

  /** The overall state of the events whose attempts were recorded, at most every 250 ms. */
  function publishStates(force = false): void {
    if (!options.onStates || changedIds.size === 0) return
    const now = Date.now()
    if (!force && now - statesAt < 250) return
    statesAt = now
    const ids = [...changedIds]
    changedIds.clear()
    try {
      for (let i = 0; i < ids.length; i += 500) options.onStates(store.statesOf(ids.slice(i, i + 500)))
    } catch (error) {
      failed('forward states read', error)
    }
  }

  schedulePoll()

  return {
    setTargets(targets, nextSettings) {
      if (nextSettings) settings = nextSettings
      const next = new Map<string, Runtime>()
      for (const t of targets) next.set(t.name, runtimeFor(t, runtimes.get(t.name)))
      for (const [name, rt] of runtimes) if (!next.has(name) && rt.inFlight === 0) rt.agent.destroy()
      runtimes.clear()
      for (const [name, rt] of next) runtimes.set(name, rt)
      soon()
    },
    targets: () => [...runtimes.values()].map((rt) => rt.target),
    kick: soon,
    async relay(seq, budgetMs) {
      const subscribed = [...runtimes.values()].filter(
        (rt) =>
          rt.target.enabled && rt.stopped === null && typeMatches(rt.target.events, authorizationRequestType),
      )
      let answer: Promise<DeliveryOutcome> | null = null
      for (const rt of subscribed) {
        let row: ClaimedForward | null
        try {
          row = store.claimEvent(seq, rt.target.name, clock.now() + rt.target.timeoutMs + 30_000, owner)
        } catch (error) {
          failed('forward relay claim', error)
          return null
        }
        if (!row) continue
        // Only the authorizer's answer counts; the others are told once (see settle).
        const authorizer = rt.target.name === settings.authorizer
        const attempt = start(rt, row, authorizer ? budgetMs : null)
        if (authorizer) answer = attempt
      }
      const first = answer as Promise<DeliveryOutcome> | null
      if (!first) return null
      let timer: NodeJS.Timeout | undefined
      const outcome = await Promise.race([
        first,
        new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), budgetMs))),
      ])
      clearTimeout(timer)
      if (!outcome || outcome.status === null || outcome.latencyMs > budgetMs) return null
      return { status: outcome.status, body: outcome.response, contentType: outcome.contentType }
    },
    status() {
      let counts: Map<string, { pending: number; failing: number }>
      try {
        counts = store.openCounts()
      } catch (error) {
        failed('forward counts read', error)
        counts = new Map()
      }
      return [...runtimes.values()].map((rt): ForwardTargetStatus => {
        const c = counts.get(rt.target.name) ?? { pending: 0, failing: 0 }
        return {
          name: rt.target.name,
          url: rt.target.url,
          enabled: rt.target.enabled,
          adhoc: rt.target.adhoc,
          events: rt.target.events,
          signing: rt.target.secret ? 'target secret' : 'original',
          health: !rt.target.enabled
            ? 'disabled'
            : rt.stopped !== null
              ? 'stopped'
              : rt.consecutiveFailures > 0
                ? 'failing'
                : 'ok',
          delivered: rt.delivered,
          pending: c.pending,
          failing: c.failing,
          gaveUp: rt.gaveUp,
          inFlight: rt.inFlight,
          lastError: rt.lastError,
          lastErrorAt: rt.lastErrorAt,
          lastOkAt: rt.lastOkAt,
        }
      })
    },
    busy: () =>
      [...runtimes.values()].reduce(
        (n, rt) => n + rt.inFlight + (clock.now() >= rt.blockedUntil ? rt.queue.length : 0),
        0,
      ),
    async stop() {
      stopped = true
      cancelPoll?.()
      cancelPoll = null
      const unstarted = [...runtimes.values()].flatMap((rt) => rt.queue.splice(0).map((r) => r.id))
      while (running.size > 0) await Promise.all([...running])
      flush()
      publishStates(true)
      try {
        store.release(unstarted)
      } catch (error) {
        failed('forward outbox release', error)
      }
      for (const rt of runtimes.values()) rt.agent.destroy()
    },
  }
}
