import type { Database } from 'better-sqlite3'
import type { PollClock } from '../../shared/clock'
import type { DisablementStatus, EndpointForecast } from '../../shared/contract/disablement'
import type { ListenerStatus } from '../../shared/contract/events'
import type { PublicUrlState } from '../../shared/contract/payments'
import { DisposableStore, toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import { err } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { CommittedEvents } from '../committed'
import type { Logger } from '../log'
import { forecast, ladderMs } from './forecast'
import type { DownSpan, Forecast } from './forecast'
import { createOutageStore, keepOutagesMs } from './store'
import type { OutageStore } from './store'
import { apiSentence, failedBody, failedTitle, riskBody, riskTitle, stateMessage } from './text'

/** The alert rules' condition, by shape (alerts' `Condition`: capabilities never import each other). */
export interface DisablementCondition {
  rule: 'endpoint.disable_risk' | 'endpoint.deliveries_failed'
  subject: string
  serviceId: null
  name: string
  active: boolean
  title: string
  body: string
  gone?: string
}

export interface DisablementDeps {
  db: Database
  clock: PollClock
  log: Logger
  /** alerts.disablementLeadMinutes, in ms. */
  leadMs(): number
  /** Whether listener.publicUrl is set: the service delivers to this listener only through it. */
  publicUrlSet(): boolean
  /** The listener: whether it listens, its endpoints, its outages between runs. */
  listener(): ListenerStatus | null
  publicUrl(): PublicUrlState
  committed: CommittedEvents
  /** The payments API's list of endpoints (id and status), asked once a failure is seen. */
  listEndpoints(): Promise<Result<{ endpoints: { id: string; status: string | null }[] }>>
  observe(condition: DisablementCondition): void
  publish(status: DisablementStatus): void
  /** How often it looks (default 30 s). */
  checkMs?: number
  /** Told when the outage record cannot be written (a full disk): the console's storage state. */
  storageFailed?(where: string, error: unknown): void
}

export interface DisablementWatch extends Disposable {
  status(): DisablementStatus
  /** Looks now (and resolves once the look, including a status check at the API, is done). */
  checkNow(): Promise<DisablementStatus>
  /** Transitions into at_risk and failed since start, for /metrics. */
  counts(): { warnings: number; failures: number }
}

const apiTimeoutMs = 20_000
const apiRecheckMs = 30 * 60_000

/** The endpoint-disablement watch: records when the listener cannot be reached (public URL checks
 * failing, the listener not listening; its outages between runs come from listener_runs), forecasts
 * per endpoint when the outage's first deliveries use their 5th retry, warns `leadMs` before it and
 * alerts once it passed, with the payments API's view of the endpoint. */
export function startDisablementWatch(deps: DisablementDeps): DisablementWatch {
  const store = createOutageStore(deps.db)
  try {
    store.closeStale(deps.clock.now())
  } catch (error) {
    // Spans left open stay open until a look can write: the watch starts anyway.
    deps.log.warn('the outage record cannot be tidied at start', { error })
  }
  const owned = new DisposableStore()
  const arrivals = new Map<string, number>()
  const api: ApiAnswers = new Map()
  const was = new Map<string, EndpointForecast['state']>()
  let watched = new Set<string>()
  const counts = { warnings: 0, failures: 0 }
  const record = createOutageRecord(store, deps)
  let current: DisablementStatus = {
    checkedAt: null,
    leadMinutes: deps.leadMs() / 60_000,
    outage: null,
    endpoints: [],
    note: null,
  }
  owned.add(
    deps.committed.subscribe((batch) => {
      if (batch.origin.kind !== 'listener') return
      for (const e of batch.events) if (e.summary.endpoint) arrivals.set(e.summary.endpoint, deps.clock.now())
    }),
  )

  const spansAt = (now: number): DownSpan[] => [
    ...record.spans(now),
    ...(deps.listener()?.outages ?? []).map((o) => ({
      from: o.from,
      to: o.to,
      cause: 'listener_runs',
      detail: 'watchdesk was not running',
    })),
  ]

  /** A failure already answered by deliveries arriving again after it is settled for good. */
  const settledFailure = (endpoint: string, f: Forecast, now: number): Forecast => {
    if (f.state !== 'failed' || f.failedAt === null) return f
    const arrived = arrivals.get(endpoint)
    if (arrived !== undefined && arrived > f.failedAt && f.downSince === null) {
      store.settle(endpoint, f.failedAt)
      deps.observe(condition('endpoint.deliveries_failed', endpoint, false, '', '', deliveriesAgain))
    }
    if (store.settledThrough(endpoint) < f.failedAt) return f
    const deadlineState = f.deadline !== null && f.deadline - now <= deps.leadMs() ? 'at_risk' : 'clear'
    return { ...f, state: deadlineState, failedFrom: null, failedBefore: null, failedAt: null }
  }

  const observeEndpoint = (endpoint: string, f: Forecast, now: number) => {
    const risk = f.state === 'at_risk'
    const failed = f.state === 'failed'
    const both = [
      condition(
        'endpoint.disable_risk',
        endpoint,
        risk,
        risk ? riskTitle(endpoint, f) : `Endpoint ${endpoint} reachable again`,
        risk ? riskBody(endpoint, f, now) : 'The listener is reachable before the deadline.',
      ),
      condition(
        'endpoint.deliveries_failed',
        endpoint,
        failed,
        failedTitle(endpoint),
        failed ? failedBody(endpoint, f, api.get(endpoint)?.sentence ?? '') : '',
      ),
    ]
    // Active first: the warning handing over to the failure stays one incident, escalated.
    for (const c of both.sort((a, b) => Number(b.active) - Number(a.active))) deps.observe(c)
    const before = was.get(endpoint)
    if (f.state !== before && f.state === 'at_risk') counts.warnings++
    if (f.state !== before && f.state === 'failed') counts.failures++
    was.set(endpoint, f.state)
  }

  const look = async (): Promise<DisablementStatus> => {
    const now = deps.clock.now()
    record.save(signsNow(deps, now))
    const listener = deps.listener()
    // Without a public URL the service delivers elsewhere (a relay) or nowhere: nothing to watch here.
    const endpoints = deps.publicUrlSet() ? (listener?.endpoints ?? []) : []
    const base = forecast(spansAt(now), now, deps.leadMs())
    const each = new Map(endpoints.map((e) => [e, settledFailure(e, base, now)]))
    await askApi(
      api,
      deps.listEndpoints,
      endpoints.filter((e) => each.get(e)!.state === 'failed'),
      now,
    )
    for (const [endpoint, f] of each) observeEndpoint(endpoint, f, now)
    for (const gone of watched)
      if (!each.has(gone))
        for (const rule of ['endpoint.disable_risk', 'endpoint.deliveries_failed'] as const)
          deps.observe(condition(rule, gone, false, '', '', 'endpoint removed'))
    watched = new Set(endpoints)
    return publish(
      statusOf({
        now,
        leadMs: deps.leadMs(),
        base,
        each,
        apiStatus: (e) => api.get(e)?.status ?? null,
        publicUrlSet: deps.publicUrlSet(),
        problem: record.problem(),
      }),
    )
  }

  const publish = (next: DisablementStatus) => {
    const changed = JSON.stringify({ ...next, checkedAt: 0 }) !== JSON.stringify({ ...current, checkedAt: 0 })
    current = next
    if (changed) deps.publish(next)
    return next
  }

  // One look at a time, each at the clock's time when it starts: a caller during a look gets the next.
  let queue: Promise<DisablementStatus> = Promise.resolve(current)
  let stopped = false
  let timer: Disposable | null = null
  const checkNow = (): Promise<DisablementStatus> =>
    (queue = queue.then(() =>
      look().catch((error: unknown) => {
        deps.log.error('the endpoint-disablement watch could not look', { error })
        return current
      }),
    ))
  const loop = () => {
    timer = null
    void checkNow().finally(() => {
      if (!stopped) timer = deps.clock.after(deps.checkMs ?? 30_000, loop)
    })
  }
  loop()
  owned.add(toDisposable(() => ((stopped = true), timer?.dispose())))
  return {
    status: () => current,
    checkNow,
    counts: () => ({ ...counts }),
    dispose: () => owned.dispose(),
  }
}

/** One sign of reachability now: `cause` failing (`down`) or fine again at `at`. */
interface Sign {
  cause: 'public_url' | 'listener'
  down: boolean
  at: number
  detail: string
}

/** The public URL's and the listener's state now. */
function signsNow(deps: DisablementDeps, now: number): Sign[] {
  const signs: Sign[] = []
  const url = deps.publicUrl()
  if (url.url && url.state === 'unreachable')
    signs.push({
      cause: 'public_url',
      down: true,
      at: Math.min(url.checkedAt ?? now, now),
      detail: `public URL check: ${url.message}`,
    })
  else if (url.state === 'reachable' || !deps.publicUrlSet())
    signs.push({ cause: 'public_url', down: false, at: now, detail: '' })
  const listener = deps.listener()
  if (listener && !listener.listening)
    signs.push({
      cause: 'listener',
      down: true,
      at: now,
      detail: `listener not listening: ${listener.problem ?? 'stopped'}`,
    })
  else if (listener) signs.push({ cause: 'listener', down: false, at: now, detail: '' })
  return signs
}

/** A sign applied to spans the way the outage table applies it (down opens a span unless one is
 * open, up closes the open one). */
function applySign(spans: DownSpan[], sign: Sign): DownSpan[] {
  const open = spans.find((s) => s.cause === sign.cause && s.to === null)
  if (sign.down)
    return open ? spans : [...spans, { cause: sign.cause, from: sign.at, to: null, detail: sign.detail }]
  return open ? spans.map((s) => (s === open ? { ...s, to: Math.max(sign.at, s.from) } : s)) : spans
}

/** The outage table with what it could not take yet. A disk that fills often comes with the outage
 * that matters: the signs the table refuses are kept in memory (state changes only, so bounded),
 * the forecast reads them with the table's spans, and they are written, in order and in one
 * transaction, at the first look the table takes writes again. */
function createOutageRecord(store: OutageStore, deps: DisablementDeps) {
  let unsaved: Sign[] = []
  let problem: string | null = null
  const write = deps.db.transaction((signs: Sign[]) => {
    for (const s of signs)
      if (s.down) store.down(s.cause, s.at, s.detail)
      else store.up(s.cause, s.at)
  })
  return {
    save(signs: Sign[]): void {
      try {
        write([...unsaved, ...signs])
        unsaved = []
        problem = null
      } catch (error) {
        for (const sign of signs) {
          const last = unsaved.findLast((u) => u.cause === sign.cause)
          if (!last || last.down !== sign.down) unsaved.push(sign)
        }
        if (problem === null) deps.log.warn('the outage record cannot be saved; kept in memory', { error })
        problem =
          `The outage record cannot be saved to the database (${(error as Error).message}): the deadlines hold ` +
          'while this console runs, and are saved once it can write again. Free disk space in the data dir.'
        deps.storageFailed?.('endpoint outage record', error)
      }
    },
    spans: (now: number): DownSpan[] => unsaved.reduce(applySign, store.spans(now - keepOutagesMs)),
    problem: () => problem,
  }
}

type ApiAnswers = Map<string, { at: number; sentence: string; status: string | null }>

/** The payments API's status of each failing endpoint, asked once per failure and every 30 min
 * (at each look while the API does not answer). */
async function askApi(
  api: ApiAnswers,
  listEndpoints: DisablementDeps['listEndpoints'],
  failing: string[],
  now: number,
): Promise<void> {
  const due = failing.filter((e) => (api.get(e)?.at ?? -Infinity) < now - apiRecheckMs)
  if (due.length === 0) return
  const listed = await withTimeout(listEndpoints(), apiTimeoutMs)
  for (const endpoint of due) {
    const found = listed.ok ? listed.value.endpoints.find((e) => e.id === endpoint) : undefined
    const sentence = apiSentence(
      endpoint,
      listed.ok
        ? { ok: true, found: found !== undefined, status: found?.status ?? null }
        : { ok: false, message: listed.error.message },
    )
    // A question that failed is asked again at the next look (as its sentence says), not in 30 min.
    api.set(endpoint, { at: listed.ok ? now : -Infinity, sentence, status: found?.status ?? null })
  }
}

/** What the status method, the push and the Overview show, from one look. */
function statusOf(look: {
  now: number
  leadMs: number
  base: Forecast
  each: Map<string, Forecast>
  apiStatus(endpoint: string): string | null
  publicUrlSet: boolean
  /** The outage record cannot be saved (a full disk): said beside the deadlines. */
  problem: string | null
}): DisablementStatus {
  const { now, base, each } = look
  return {
    checkedAt: now,
    leadMinutes: look.leadMs / 60_000,
    outage:
      base.downSince !== null && base.evidence
        ? { since: base.downSince, cause: base.evidence.cause, detail: base.evidence.detail }
        : null,
    endpoints: [...each].map(([endpoint, f]) => ({
      endpoint,
      state: f.state,
      downSince: f.downSince,
      deadline: f.deadline,
      failedFrom: f.failedFrom,
      failedBefore: f.failedBefore,
      apiStatus: f.state === 'failed' ? look.apiStatus(endpoint) : null,
      message: stateMessage(f, now),
    })),
    note: look.problem
      ? look.problem
      : !look.publicUrlSet
        ? 'No public URL (listener.publicUrl): the service does not deliver to this listener, so no endpoint is watched here.'
        : each.size === 0
          ? 'No endpoint secret: register an endpoint ("Connect this console") to have it watched.'
          : null,
  }
}

const deliveriesAgain =
  'deliveries arrive again: the endpoint is enabled; retry the ones marked failed from the dashboard if not done yet'

function condition(
  rule: DisablementCondition['rule'],
  endpoint: string,
  active: boolean,
  title: string,
  body: string,
  gone?: string,
): DisablementCondition {
  return {
    rule,
    subject: `endpoint:${endpoint}`,
    serviceId: null,
    name: `Endpoint ${endpoint}`,
    active,
    title,
    body,
    gone,
  }
}

async function withTimeout<T>(work: Promise<Result<T>>, ms: number): Promise<Result<T>> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<Result<T>>((resolve) => {
    timer = setTimeout(
      () =>
        resolve(
          err(
            'unavailable',
            `the payments API did not answer within ${ms / 1000} s; it is asked again at the next look.`,
          ),
        ),
      ms,
    )
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

export { ladderMs }
