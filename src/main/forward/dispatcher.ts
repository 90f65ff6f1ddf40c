import type { Agent } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { ForwardState, ForwardTargetStatus } from '../../shared/contract/forward'
import type { PollClock } from '../../shared/clock'
import type { Disposable } from '../../shared/disposable'
import type { Logger } from '../log'
import { maskConfigUrl } from '../../shared/config-secrets.ts'
import {
  admission,
  authorizationRequestType,
  freshHealth,
  healthAfterChange,
  judge,
  nextAdmissionAt,
} from './breaker.ts'
import type { Health } from './breaker.ts'
import { agentFor, attemptHeaders, deliver, responseKeptBytes } from './deliver.ts'
import type { DeliveryOutcome } from './deliver.ts'
import { typeMatches } from './patterns.ts'
import { createRecorder } from './recorder.ts'
import type { Recorder } from './recorder.ts'
import type { ClaimedForward, ForwardStore, LeasedRow } from './store.ts'
import type { ForwardTarget, TargetSettings } from './targets.ts'
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
  /** The targets' status changed (an attempt, a claim, new rows): called at most every
   * `statusEveryMs` of `clock` while things move, and once after the last change. */
  onStatus?: (targets: ForwardTargetStatus[]) => void
  statusEveryMs?: number
  /** Least real time between two looks at the outbox while attempts finish (default 50 ms). */
  stepEveryMs?: number
}

/** What applies to all targets: who answers authorizations, how often a paused target is probed. */
export const defaultProbeMs = 10_000

export interface Dispatcher {
  setTargets(targets: ForwardTarget[], settings?: TargetSettings): void
  targets(): ForwardTarget[]
  /** Looks at the outbox now (new rows were committed or queued by a replay). Between kicks the
   * dispatcher sleeps until the earliest due row, pause end or probe: it never polls. */
  kick(): void
  /** card.authorization.request: sends the event to the authorizer and, once each as a
   * notification, to the other subscribed targets; resolves with the authorizer's answer if it comes
   * within `budgetMs`, else null (the fallback). */
  relay(seq: number, budgetMs: number): Promise<RelayAnswer | null>
  status(): ForwardTargetStatus[]
  /** Attempts under way plus claimed rows about to start (not those of a target pausing), plus a
   * look at the outbox about to run. */
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
  health: Health
}

/** A target that takes rows in this step. */
interface Claim {
  rt: Runtime
  probing: boolean
}

const relayKeptBytes = 64 * 1024
const flushAt = 256
/** After the database refused a claim or a record, the next try (no kick may come meanwhile). */
const storageRetryMs = 1_000

/** Claims due rows, runs the attempts, records them; sleeps in between. The breaker (breaker.ts)
 * decides what may start and what an answer means; the recorder (recorder.ts) writes the results. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, clock, log, owner } = options
  const runtimes = new Map<string, Runtime>()
  let settings: TargetSettings = { authorizer: null, probeMs: defaultProbeMs }
  const running = new Set<Promise<void>>()
  let stopped = false
  let soonScheduled = false
  let lastStepAt = -Infinity
  const stepEveryMs = options.stepEveryMs ?? 100
  let wake: { at: number; timer: Disposable } | null = null

  const failed = (what: string, error: unknown) => {
    if (options.storageFailed) options.storageFailed(what, error)
    else log.error(what, { error })
  }
  const recorder = createRecorder({ store, clock, onStates: options.onStates, failed })
  const reporter = statusReporter(clock, options.onStatus, options.statusEveryMs ?? 250, () => status())

  /** A step soon: at once when the last was at least `stepEveryMs` ago, else when that much has
   * passed. Each step with work is one write transaction, which the commit worker may have to
   * wait for: under load they come at most every stepEveryMs, each with more rows in it. (Real
   * time, not `clock`: this is how work is grouped, not when rows are due.) 100 ms rather than 50
   * took ingest with one target from 0.82–0.89 to 0.88–0.91 of ingest alone (docs/benchmarks.md);
   * a forward under steady load starts up to 100 ms later, an authorization relay not at all. */
  function soon(): void {
    if (soonScheduled || stopped) return
    soonScheduled = true
    const run = () => {
      soonScheduled = false
      lastStepAt = performance.now()
      if (!stopped) step()
    }
    const wait = lastStepAt + stepEveryMs - performance.now()
    if (wait <= 0) setImmediate(run)
    else setTimeout(run, wait)
  }

  /** One look at the outbox: what finished is recorded and the due rows are claimed in one write
   * transaction (one lock the commit worker may wait for, not one per attempt and per claim), the
   * attempts start, and a timer is set for the earliest moment anything else may start. */
  function step(): void {
    const now = clock.now()
    const { claims, next } = plan(runtimes, settings, store, failed, now)
    const recovered = [...runtimes.values()].filter((rt) => rt.health.recovered)
    let wakeAt = next
    if (claims.length > 0 || recovered.length > 0 || recorder.waiting() > 0) {
      try {
        const leased: LeasedRow[][] = []
        const written = store.atomically(() => {
          const done = recorder.writeWithin(
            recovered.map((rt) => rt.target.name),
            now,
          )
          for (const c of claims) leased.push(lease(store, owner, c.rt, now, c.probing))
          return done
        })
        written()
        // The bodies are read after the commit: the write lock is held for the leases only. (Should
        // this read fail, its rows come free again when their lease ends.)
        claims.forEach((c, i) => c.rt.queue.push(...store.withEvents(leased[i]!)))
        for (const rt of recovered) rt.health = { ...rt.health, recovered: false }
        reporter.changed()
      } catch (error) {
        failed('forward outbox write', error)
        wakeAt = Math.min(wakeAt, now + storageRetryMs)
      }
    }
    for (const rt of runtimes.values()) startDue(rt, now)
    sleepUntil(wakeAt)
  }

  /** One timer for the earliest moment anything can start by the clock alone; none when idle. */
  function sleepUntil(at: number): void {
    if (wake && wake.at === at) return
    wake?.timer.dispose()
    wake = null
    if (!Number.isFinite(at) || stopped) return
    const timer = clock.after(Math.max(0, at - clock.now()), () => {
      wake = null
      soon()
    })
    wake = { at, timer }
  }

  function write(): boolean {
    const recovered = [...runtimes.values()].filter((rt) => rt.health.recovered)
    const ok = recorder.write(recovered.map((rt) => rt.target.name))
    if (ok) for (const rt of recovered) rt.health = { ...rt.health, recovered: false }
    if (ok) reporter.changed()
    return ok
  }

  /** Starts attempts up to the target's admission from the rows it claimed. */
  function startDue(rt: Runtime, now: number): void {
    const admitted = admission(rt.health, rt.target, rt.inFlight, now, settings.probeMs)
    if (!admitted) return
    while (rt.inFlight < admitted.limit && rt.queue.length > 0) start(rt, rt.queue.shift()!, null)
  }

  /** One attempt; `relayBudgetMs` set for the authorizer's relay (64 KB of the answer kept). */
  function start(rt: Runtime, row: ClaimedForward, relayBudgetMs: number | null): Promise<DeliveryOutcome> {
    const t = rt.target
    const body = row.editedBody ?? row.body
    rt.inFlight++
    const at = clock.now()
    rt.health = { ...rt.health, lastStartAt: at }
    reporter.changed()
    const attempt = attemptOf(options.originalSignature, rt, row, body, relayBudgetMs)
    const done = attempt.then((outcome) => {
      rt.inFlight--
      try {
        settle(rt, row, at, outcome, relayBudgetMs)
      } catch (error) {
        // Its lease runs out and the row is tried again; the others go on.
        log.error('a forward attempt could not be settled', { error, target: t.name, outboxId: row.id })
      }
      // The next claimed row starts at once; the outbox is looked at (and this attempt recorded)
      // with the next step.
      if (!stopped) startDue(rt, clock.now())
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
    const verdict = judge(rt.health, rt.target, row, outcome, {
      now: clock.now(),
      relayBudgetMs,
      authorizer: settings.authorizer,
      maxAgeMs: options.maxAgeMs(),
      probeMs: settings.probeMs,
    })
    rt.health = verdict.health
    if (verdict.stoppedNow) {
      log.warn('a forward target answered 410 Gone; forwarding to it stopped', { target: rt.target.name })
      // Rows claimed but not started go back to the outbox: queued for when it resumes.
      try {
        store.release(rt.queue.splice(0).map((r) => r.id))
      } catch (error) {
        failed('forward outbox release', error)
      }
    }
    const { record, report } = attemptResults(rt, row, at, outcome, verdict)
    recorder.add(record, row.eventId)
    options.onAttempt?.(report)
    if (recorder.waiting() >= flushAt) write()
  }

  function status(): ForwardTargetStatus[] {
    let counts: Map<string, { pending: number; failing: number }>
    try {
      counts = store.openCounts()
    } catch (error) {
      failed('forward counts read', error)
      counts = new Map()
    }
    return [...runtimes.values()].map((rt) => statusOf(rt, counts.get(rt.target.name)))
  }

  return {
    setTargets(targets, nextSettings) {
      if (nextSettings) settings = nextSettings
      const next = new Map<string, Runtime>()
      for (const t of targets) next.set(t.name, runtimeFor(t, runtimes.get(t.name)))
      for (const [name, rt] of runtimes) if (!next.has(name) && rt.inFlight === 0) rt.agent.destroy()
      runtimes.clear()
      for (const [name, rt] of next) runtimes.set(name, rt)
      reporter.changed()
      soon()
    },
    targets: () => [...runtimes.values()].map((rt) => rt.target),
    kick() {
      reporter.changed()
      soon()
    },
    relay: (seq, budgetMs) =>
      relayToSubscribers({ runtimes, settings, store, clock, owner, failed, start }, seq, budgetMs),
    status,
    // A step about to run counts: it may start attempts.
    busy: () =>
      [...runtimes.values()].reduce(
        (n, rt) => n + rt.inFlight + (clock.now() >= rt.health.blockedUntil ? rt.queue.length : 0),
        soonScheduled ? 1 : 0,
      ),
    async stop() {
      stopped = true
      wake?.timer.dispose()
      wake = null
      const unstarted = [...runtimes.values()].flatMap((rt) => rt.queue.splice(0).map((r) => r.id))
      while (running.size > 0) await Promise.all([...running])
      write()
      recorder.publishNow()
      try {
        store.release(unstarted)
      } catch (error) {
        failed('forward outbox release', error)
      }
      reporter.stop()
      for (const rt of runtimes.values()) rt.agent.destroy()
    },
  }
}

function runtimeFor(target: ForwardTarget, previous?: Runtime): Runtime {
  const sameAgent =
    previous && previous.target.url === target.url && previous.target.concurrency === target.concurrency
  if (previous && !sameAgent) previous.agent.destroy()
  const agent = sameAgent ? previous.agent : agentFor(target.url, target.concurrency)
  // Updated in place, never copied: the attempts in flight settle on this object (see start), and
  // a copy would keep their slots taken for good (the target would never claim again).
  if (previous)
    return Object.assign(previous, {
      health: healthAfterChange(previous.health, previous.target, target),
      target,
      agent,
    })
  return {
    queue: [],
    inFlight: 0,
    health: freshHealth(),
    target,
    agent,
  }
}

/** Which targets take rows now (reads only), and the earliest time something else may start
 * (a row due later, a pause ending, a probe). */
function plan(
  runtimes: Map<string, Runtime>,
  settings: TargetSettings,
  store: ForwardStore,
  failed: (what: string, error: unknown) => void,
  now: number,
): { claims: Claim[]; next: number } {
  const claims: Claim[] = []
  let next = Infinity
  for (const rt of runtimes.values()) {
    const t = rt.target
    const admitted = admission(rt.health, t, rt.inFlight, now, settings.probeMs)
    const later = nextAdmissionAt(rt.health, t, now, settings.probeMs)
    if (later !== null && later > now) next = Math.min(next, later)
    // Claimed again while the queue still holds a round, so attempts never wait for a step.
    if (!admitted || rt.queue.length >= (admitted.probing ? 1 : t.concurrency)) continue
    if (admitted.probing && rt.inFlight >= admitted.limit) continue
    let due: number | null
    try {
      due = store.nextDue(t.name, now)
    } catch (error) {
      failed('forward outbox read', error)
      next = Math.min(next, now + storageRetryMs)
      continue
    }
    if (due === null) continue
    if (admitted.probing || due <= now) claims.push({ rt, probing: admitted.probing })
    else next = Math.min(next, due)
  }
  return { claims, next }
}

function lease(store: ForwardStore, owner: string, rt: Runtime, now: number, probing: boolean): LeasedRow[] {
  const t = rt.target
  const batch = Math.min(256, t.concurrency * 16)
  const rounds = Math.ceil(batch / t.concurrency) + 1
  const leaseUntil = now + t.timeoutMs * rounds + 30_000
  // A probe takes the earliest-due row whatever its due time.
  const dueBy = probing ? Number.MAX_SAFE_INTEGER : now
  return store.lease(t.name, probing ? 1 : batch, now, leaseUntil, owner, dueBy)
}

/** The POST of one row, or its failure: whatever goes wrong while preparing it (its headers,
 * its signature) fails this row alone, recorded as the attempt's error and retried on its
 * schedule, never the worker (issue 29: one event id stopped all forwarding). */
function attemptOf(
  originalSignature: DispatcherOptions['originalSignature'],
  rt: Runtime,
  row: ClaimedForward,
  body: Buffer,
  relayBudgetMs: number | null,
): Promise<DeliveryOutcome> {
  const t = rt.target
  let headers: Record<string, string>
  try {
    headers = attemptHeaders(t, row, body, originalSignature)
  } catch (error) {
    const error_ = `the attempt could not be prepared (${error instanceof Error ? error.message : String(error)})`
    return Promise.resolve({
      status: null,
      latencyMs: 0,
      error: error_,
      response: Buffer.alloc(0),
      contentType: null,
    })
  }
  return deliver({
    url: t.url,
    body,
    headers,
    timeoutMs: t.timeoutMs,
    agent: rt.agent,
    keepBytes: relayBudgetMs === null ? responseKeptBytes : relayKeptBytes,
  })
}

/** What one settled attempt records in the outbox, and how it is reported. */
function attemptResults(
  rt: Runtime,
  row: ClaimedForward,
  at: number,
  outcome: DeliveryOutcome,
  verdict: ReturnType<typeof judge>,
): { record: Parameters<Recorder['add']>[0]; report: AttemptReport } {
  const { state, dueAt, error } = verdict
  return {
    record: {
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
    },
    report: {
      target: rt.target,
      outboxId: row.id,
      queuedAt: row.createdAt,
      dueAt: state === 'failing' ? dueAt : null,
      stopped: rt.health.stopped !== null,
      eventId: row.eventId,
      type: row.type,
      attempt: row.attempt,
      status: outcome.status,
      latencyMs: outcome.latencyMs,
      error,
      state,
      edited: row.editedBody !== null,
      replay: row.replay,
    },
  }
}

/** card.authorization.request: claims the event's row of every subscribed target and starts it;
 * answers the authorizer's answer if it comes within `budgetMs` (see Dispatcher.relay). */
async function relayToSubscribers(
  d: {
    runtimes: Map<string, Runtime>
    settings: TargetSettings
    store: ForwardStore
    clock: PollClock
    owner: string
    failed: (what: string, error: unknown) => void
    start: (rt: Runtime, row: ClaimedForward, relayBudgetMs: number | null) => Promise<DeliveryOutcome>
  },
  seq: number,
  budgetMs: number,
): Promise<RelayAnswer | null> {
  const { runtimes, settings, store, clock, owner, failed, start } = d
  const subscribed = [...runtimes.values()].filter(
    (rt) =>
      rt.target.enabled &&
      rt.health.stopped === null &&
      typeMatches(rt.target.events, authorizationRequestType),
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
    // Only the authorizer's answer counts; the others are told once (see judge).
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
}

function statusOf(rt: Runtime, c = { pending: 0, failing: 0 }): ForwardTargetStatus {
  const h = rt.health
  return {
    name: rt.target.name,
    url: maskConfigUrl(rt.target.url),
    enabled: rt.target.enabled,
    adhoc: rt.target.adhoc,
    events: rt.target.events,
    signing: rt.target.secret ? 'target secret' : 'original',
    health: !rt.target.enabled
      ? 'disabled'
      : h.stopped !== null
        ? 'stopped'
        : h.consecutiveFailures > 0
          ? 'failing'
          : 'ok',
    delivered: h.delivered,
    pending: c.pending,
    failing: c.failing,
    gaveUp: h.gaveUp,
    inFlight: rt.inFlight,
    lastError: h.lastError,
    lastErrorAt: h.lastErrorAt,
    lastOkAt: h.lastOkAt,
  }
}

/** Reports the status when something changed: at most every `everyMs`, the last change always
 * reported (a trailing call), and only when it differs from what was reported before. */
function statusReporter(
  clock: PollClock,
  onStatus: ((targets: ForwardTargetStatus[]) => void) | undefined,
  everyMs: number,
  read: () => ForwardTargetStatus[],
): { changed(): void; stop(): void } {
  let timer: Disposable | null = null
  let last = ''
  let at = -Infinity
  let stopped = false
  const report = () => {
    timer = null
    at = clock.now()
    const targets = read()
    const text = JSON.stringify(targets)
    if (text === last) return
    last = text
    onStatus!(targets)
  }
  return {
    changed() {
      if (!onStatus || timer || stopped) return
      timer = clock.after(Math.max(0, at + everyMs - clock.now()), report)
    },
    stop() {
      stopped = true
      timer?.dispose()
      if (onStatus) report()
    },
  }
}
