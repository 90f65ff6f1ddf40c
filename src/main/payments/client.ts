import { randomUUID } from 'node:crypto'
import { apiRoot } from '../../shared/payments'
import type { KeyKind, Operation } from '../../shared/payments'
import { err, ok } from '../../shared/result'
import type { ApiError, Err, Result } from '../../shared/result'
import type { Logger } from '../log'
import type { Clock } from './pace-clock'
import type { Limiter } from './limiter'
import { describeFailure, parseJson } from './failures'
import type { Answer, FailureContext } from './failures'

export interface ApiKey {
  name: string
  secret: string
  kind: KeyKind
}

export interface PaymentsRequest {
  operation: Operation
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  query?: Record<string, string>
  body?: unknown
}

export interface PaymentsResponse {
  status: number
  body: unknown
  idempotencyKey: string | null
  attempts: number
}

export interface ClientOptions {
  baseUrl: string
  key: ApiKey
  businessId: string | null
  limiter: Limiter
  clock: Clock
  timeoutMs: number
  log: Logger
  maxAttempts?: number
  /** Longest Retry-After honoured before giving up with a clear error. */
  maxRetryAfterMs?: number
  fetch?: typeof fetch
  random?: () => number
  onRateLimited?: (untilMs: number) => void
  onRateLimitCleared?: () => void
  /** Each answer's HTTP Date header, with this machine's time when it arrived (the clock guard). */
  onDate?: (localMs: number, date: string) => void
}

export interface PaymentsClient {
  request(req: PaymentsRequest): Promise<Result<PaymentsResponse>>
}

const writeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
const retryableStatus = new Set([429, 500, 502, 503, 504])

/** One try's outcome: the service's answer (any status), or no answer with its sentence. */
type Attempt =
  | (Answer & { kind: 'response'; body: unknown; retryAfter: string | null })
  | { kind: 'failure'; error: Err<ApiError> }

/** The one client for every payments call (spec 5.1, 7.1, 8): bearer auth, JSON bodies, one
 * idempotency key per write reused on each retry, time-outs, the plan's limiter before every
 * attempt, Retry-After or jittered back-off on 429, and errors that name the likely cause
 * (failures.ts). */
export function createPaymentsClient(options: ClientOptions): PaymentsClient {
  const maxAttempts = options.maxAttempts ?? 4
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000
  const random = options.random ?? Math.random
  const base = apiRoot(options.baseUrl)
  const failure: FailureContext = { key: options.key, businessId: options.businessId, base, maxAttempts }
  const transport: Transport = {
    fetch: options.fetch ?? fetch,
    timeoutMs: options.timeoutMs,
    base,
    onDate: options.onDate,
  }

  async function request(req: PaymentsRequest): Promise<Result<PaymentsResponse>> {
    const url = urlOf(base, req.path, req.query)
    const idempotencyKey = writeMethods.has(req.method) ? randomUUID() : null
    const headers = headersOf(options, req, idempotencyKey)
    const body = req.body === undefined ? undefined : JSON.stringify(req.body)

    let last: Err<ApiError> | null = null
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const release = await options.limiter.acquire()
      let outcome: Attempt
      try {
        outcome = await attemptOnce(transport, url, req.method, headers, body)
      } finally {
        release()
      }
      if (outcome.kind === 'response' && !retryableStatus.has(outcome.status)) {
        if (outcome.status < 300) {
          options.onRateLimitCleared?.()
          return ok({ status: outcome.status, body: outcome.body, idempotencyKey, attempts: attempt })
        }
        return describeFailure(failure, req, outcome, idempotencyKey)
      }
      last =
        outcome.kind === 'response' ? describeFailure(failure, req, outcome, idempotencyKey) : outcome.error
      if (attempt === maxAttempts) break
      const delay = retryDelay(outcome, attempt, options.clock.now(), maxRetryAfterMs, random)
      if (delay === null) break
      if (outcome.kind === 'response' && outcome.status === 429)
        options.onRateLimited?.(options.clock.now() + delay)
      options.log.warn('payments call will be retried', {
        method: req.method,
        path: req.path,
        attempt,
        delayMs: Math.round(delay),
        status: outcome.kind === 'response' ? outcome.status : null,
        idempotencyKey,
      })
      await options.clock.sleep(delay)
    }
    return last ?? err('internal', 'The payments call ended without an outcome.')
  }

  return { request }
}

/** Bearer auth, JSON, the selected business and a write's idempotency key. */
function headersOf(
  options: ClientOptions,
  req: PaymentsRequest,
  idempotencyKey: string | null,
): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.key.secret}`,
    accept: 'application/json',
  }
  if (req.body !== undefined) headers['content-type'] = 'application/json'
  if (options.businessId) headers['x-business-id'] = options.businessId
  if (idempotencyKey) headers['x-idempotency-key'] = idempotencyKey
  return headers
}

/** What one try needs of the client's options. */
interface Transport {
  fetch: typeof fetch
  timeoutMs: number
  base: string
  onDate: ClientOptions['onDate']
}

/** One HTTP try within the time-out: the answer whatever its status, or why none came. */
async function attemptOnce(
  transport: Transport,
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Attempt> {
  const { timeoutMs, base, onDate } = transport
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    const response = await transport.fetch(url, { method, headers, body, signal })
    const date = response.headers.get('date')
    if (date && onDate) onDate(Date.now(), date)
    const text = await response.text()
    return {
      kind: 'response',
      status: response.status,
      statusText: response.statusText,
      body: parseJson(text),
      text,
      retryAfter: response.headers.get('retry-after'),
    }
  } catch (error) {
    const cause = error instanceof Error ? error : new Error(String(error))
    if (cause.name === 'TimeoutError' || signal.aborted) {
      return {
        kind: 'failure',
        error: err(
          'unavailable',
          `${method} ${new URL(url).pathname} got no answer within ${timeoutMs} ms from ${base}. The service may be slow or unreachable; apiTimeoutMs sets the limit.`,
        ),
      }
    }
    const reason = (cause as Error & { cause?: { code?: string; message?: string } }).cause
    return {
      kind: 'failure',
      error: err(
        'unavailable',
        `Could not reach the payments API at ${base} (${reason?.code ?? reason?.message ?? cause.message}). Check apiBaseUrl in Settings and the network (watchdesk doctor checks both).`,
      ),
    }
  }
}

/** The wait before the next try: the service's Retry-After on 429 (null, give up, when longer
 * than `maxRetryAfterMs`), else full jitter: a random wait up to an exponentially growing cap. */
function retryDelay(
  outcome: Attempt,
  attempt: number,
  now: number,
  maxRetryAfterMs: number,
  random: () => number,
): number | null {
  if (outcome.kind === 'response' && outcome.status === 429 && outcome.retryAfter !== null) {
    const ms = retryAfterMs(outcome.retryAfter, now)
    if (ms !== null) return ms > maxRetryAfterMs ? null : ms
  }
  const cap = Math.min(30_000, 500 * 2 ** (attempt - 1))
  return Math.max(50, random() * cap)
}

function urlOf(base: string, path: string, query?: Record<string, string>): string {
  const url = new URL(base + path)
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v)
  return url.toString()
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterMs(value: string, now: number): number | null {
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}
