import type { Agent } from 'node:http'
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
import { createStepTimer } from './step-timer.ts'
import type { StepTimer } from './step-timer.ts'

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

/** What the dispatcher's parts share: its targets' runtimes, the settings, and the parts that
 * write (recorder), report (reporter) and wake it (timer). One object, written by the dispatcher
 * alone; the functions below each do one part of its work with it. */
interface Dispatch {
  options: DispatcherOptions
  runtimes: Map<string, Runtime>
  settings: TargetSettings
  stopped: boolean
  /** The attempts under way, each until it is settled. */
  running: Set<Promise<void>>
  recorder: Recorder
  reporter: StatusReporter
  timer: StepTimer
  failed: (what: string, error: unknown) => void
}

const relayKeptBytes = 64 * 1024
const flushAt = 256
/** After the database refused a claim or a record, the next try (no kick may come meanwhile). */
const storageRetryMs = 1_000

/** Claims due rows, runs the attempts, records them; sleeps in between. The breaker (breaker.ts)
 * decides what may start and what an answer means; the recorder (recorder.ts) writes the results;
 * the step timer (step-timer.ts) decides when the outbox is looked at. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { store, clock, log } = options
  const failed = (what: string, error: unknown) => {
    if (options.storageFailed) options.storageFailed(what, error)
    else log.error(what, { error })
  }
  const d: Dispatch = {
    options,
    runtimes: new Map(),
    settings: { authorizer: null, probeMs: defaultProbeMs },
    stopped: false,
    running: new Set(),
    recorder: createRecorder({ store, clock, onStates: options.onStates, failed }),
    reporter: statusReporter(clock, options.onStatus, options.statusEveryMs ?? 250, () => status(d)),
    timer: createStepTimer(clock, options.stepEveryMs ?? 100, () => step(d)),
    failed,
  }

  return {
    setTargets(targets, nextSettings) {
      if (nextSettings) d.settings = nextSettings
      replaceRuntimes(d.runtimes, targets)
      d.reporter.changed()
      d.timer.soon()
    },
    targets: () => [...d.runtimes.values()].map((rt) => rt.target),
    kick() {
      d.reporter.changed()
      d.timer.soon()
    },
    relay: (seq, budgetMs) => relayToSubscribers(d, seq, budgetMs),
    status: () => status(d),
    // A step about to run counts: it may start attempts.
    busy: () =>
      [...d.runtimes.values()].reduce(
        (n, rt) => n + rt.inFlight + (clock.now() >= rt.health.blockedUntil ? rt.queue.length : 0),
        d.timer.pending() ? 1 : 0,
      ),
    stop: () => stop(d),
  }
}

/** The targets as configured now: runtimes kept (updated in place) for names that stay, agents
 * of removed targets with nothing in flight closed. */
function replaceRuntimes(runtimes: Map<string, Runtime>, targets: ForwardTarget[]): void {
  const next = new Map<string, Runtime>()
  for (const t of targets) next.set(t.name, runtimeFor(t, runtimes.get(t.name)))
  for (const [name, rt] of runtimes) if (!next.has(name) && rt.inFlight === 0) rt.agent.destroy()
  runtimes.clear()
  for (const [name, rt] of next) runtimes.set(name, rt)
}

/** One look at the outbox: what finished is recorded and the due rows are claimed in one write
 * transaction (one lock the commit worker may wait for, not one per attempt and per claim), the
 * attempts start, and a timer is set for the earliest moment anything else may start. */
function step(d: Dispatch): void {
  const { store, clock } = d.options
  const now = clock.now()
  const { claims, next } = plan(d.runtimes, d.settings, store, d.failed, now)
  const recovered = [...d.runtimes.values()].filter((rt) => rt.health.recovered)
  let wakeAt = next
  if (claims.length > 0 || recovered.length > 0 || d.recorder.waiting() > 0) {
    try {
      claimAndRecord(d, claims, recovered, now)
      clearRecovered(d, recovered)
    } catch (error) {
      d.failed('forward outbox write', error)
      wakeAt = Math.min(wakeAt, now + storageRetryMs)
    }
  }
  for (const rt of d.runtimes.values()) startDue(d, rt, now)
  d.timer.sleepUntil(wakeAt)
}

/** The finished attempts written and the claims leased in one transaction; the claimed rows'
 * bodies are read after the commit (the write lock is held for the leases only; should this read
 * fail, its rows come free again when their lease ends). Throws when the database refused. */
function claimAndRecord(d: Dispatch, claims: Claim[], recovered: Runtime[], now: number): void {
  const { store, owner } = d.options
  const leased: LeasedRow[][] = []
  const written = store.atomically(() => {
    const done = d.recorder.writeWithin(
      recovered.map((rt) => rt.target.name),
      now,
    )
    for (const c of claims) leased.push(lease(store, owner, c.rt, now, c.probing))
    return done
  })
  written()
  claims.forEach((c, i) => c.rt.queue.push(...store.withEvents(leased[i]!)))
}

/** The recovered targets' failing rows were made due: their flags are cleared. */
function clearRecovered(d: Dispatch, recovered: Runtime[]): void {
  for (const rt of recovered) rt.health = { ...rt.health, recovered: false }
  d.reporter.changed()
}

/** Writes what finished outside a step (a full recorder, stopping); false when the database refused. */
function write(d: Dispatch): boolean {
  const recovered = [...d.runtimes.values()].filter((rt) => rt.health.recovered)
  const ok = d.recorder.write(recovered.map((rt) => rt.target.name))
  if (ok) clearRecovered(d, recovered)
  return ok
}

/** Starts attempts up to the target's admission from the rows it claimed. */
function startDue(d: Dispatch, rt: Runtime, now: number): void {
  const admitted = admission(rt.health, rt.target, rt.inFlight, now, d.settings.probeMs)
  if (!admitted) return
  while (rt.inFlight < admitted.limit && rt.queue.length > 0) start(d, rt, rt.queue.shift()!, null)
}

/** One attempt; `relayBudgetMs` set for the authorizer's relay (64 KB of the answer kept). */
function start(
  d: Dispatch,
  rt: Runtime,
  row: ClaimedForward,
  relayBudgetMs: number | null,
): Promise<DeliveryOutcome> {
  const { clock, log } = d.options
  const body = row.editedBody ?? row.body
  rt.inFlight++
  const at = clock.now()
  rt.health = { ...rt.health, lastStartAt: at }
  d.reporter.changed()
  const attempt = attemptOf(d.options.originalSignature, rt, row, body, relayBudgetMs)
  const done = attempt.then((outcome) => {
    rt.inFlight--
    try {
      settle(d, rt, row, at, outcome, relayBudgetMs)
    } catch (error) {
      // Its lease runs out and the row is tried again; the others go on.
      log.error('a forward attempt could not be settled', { error, target: rt.target.name, outboxId: row.id })
    }
    // The next claimed row starts at once; the outbox is looked at (and this attempt recorded)
    // with the next step.
    if (!d.stopped) startDue(d, rt, clock.now())
    d.timer.soon()
  })
  d.running.add(done)
  void done.finally(() => d.running.delete(done))
  return attempt
}

/** The breaker's verdict on a finished attempt: the target's health, the row's next state, the
 * record to write and the report; a 410 Gone gives back the target's claimed rows. */
function settle(
  d: Dispatch,
  rt: Runtime,
  row: ClaimedForward,
  at: number,
  outcome: DeliveryOutcome,
  relayBudgetMs: number | null,
): void {
  const { clock, log } = d.options
  const verdict = judge(rt.health, rt.target, row, outcome, {
    now: clock.now(),
    relayBudgetMs,
    authorizer: d.settings.authorizer,
    maxAgeMs: d.options.maxAgeMs(),
    probeMs: d.settings.probeMs,
  })
  rt.health = verdict.health
  if (verdict.stoppedNow) {
    log.warn('a forward target answered 410 Gone; forwarding to it stopped', { target: rt.target.name })
    // Rows claimed but not started go back to the outbox: queued for when it resumes.
    release(d, rt.queue.splice(0))
  }
  const { record, report } = attemptResults(rt, row, at, outcome, verdict)
  d.recorder.add(record, row.eventId)
  d.options.onAttempt?.(report)
  if (d.recorder.waiting() >= flushAt) write(d)
}

function status(d: Dispatch): ForwardTargetStatus[] {
  let counts: Map<string, { pending: number; failing: number }>
  try {
    counts = d.options.store.openCounts()
  } catch (error) {
    d.failed('forward counts read', error)
    counts = new Map()
  }
  return [...d.runtimes.values()].map((rt) => statusOf(rt, counts.get(rt.target.name)))
}

/** Claimed rows not started go back to the outbox (pending); should the database refuse, they
 * come free when their lease ends. */
function release(d: Dispatch, rows: ClaimedForward[]): void {
  try {
    d.options.store.release(rows.map((r) => r.id))
  } catch (error) {
    d.failed('forward outbox release', error)
  }
}

/** See Dispatcher.stop. */
async function stop(d: Dispatch): Promise<void> {
  d.stopped = true
  d.timer.stop()
  const unstarted = [...d.runtimes.values()].flatMap((rt) => rt.queue.splice(0))
  while (d.running.size > 0) await Promise.all([...d.running])
  write(d)
  d.recorder.publishNow()
  release(d, unstarted)
  d.reporter.stop()
  for (const rt of d.runtimes.values()) rt.agent.destroy()
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
async function relayToSubscribers(d: Dispatch, seq: number, budgetMs: number): Promise<RelayAnswer | null> {
  const { store, clock, owner } = d.options
  const subscribed = [...d.runtimes.values()].filter(
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
      d.failed('forward relay claim', error)
      return null
    }
    if (!row) continue
    // Only the authorizer's answer counts; the others are told once (see judge).
    const authorizer = rt.target.name === d.settings.authorizer
    const attempt = start(d, rt, row, authorizer ? budgetMs : null)
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
interface StatusReporter {
  changed(): void
  stop(): void
}

function statusReporter(
  clock: PollClock,
  onStatus: ((targets: ForwardTargetStatus[]) => void) | undefined,
  everyMs: number,
  read: () => ForwardTargetStatus[],
): StatusReporter {
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
