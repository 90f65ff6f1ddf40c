import { randomUUID } from 'node:crypto'
import { maskSecret } from '../../shared/mask'
import { apiRoot, kindOfCode, operations, serviceErrorOf } from '../../shared/payments'
import type { KeyKind, Operation } from '../../shared/payments'
import { err, ok } from '../../shared/result'
import type { ApiError, Err, Result } from '../../shared/result'
import type { Logger } from '../log'
import type { Clock } from './pace-clock'
import type { Limiter } from './limiter'

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

/** The one client for every payments call (spec 5.1, 7.1, 8): bearer auth, JSON bodies, one
 * idempotency key per write reused on each retry, time-outs, the plan's limiter before every
 * attempt, Retry-After or jittered back-off on 429, and errors that name the likely cause. */
export function createPaymentsClient(options: ClientOptions): PaymentsClient {
  const maxAttempts = options.maxAttempts ?? 4
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000
  const doFetch = options.fetch ?? fetch
  const random = options.random ?? Math.random
  const base = apiRoot(options.baseUrl)

  async function request(req: PaymentsRequest): Promise<Result<PaymentsResponse>> {
    const url = urlOf(base, req.path, req.query)
    const idempotencyKey = writeMethods.has(req.method) ? randomUUID() : null
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.key.secret}`,
      accept: 'application/json',
    }
    if (req.body !== undefined) headers['content-type'] = 'application/json'
    if (options.businessId) headers['x-business-id'] = options.businessId
    if (idempotencyKey) headers['x-idempotency-key'] = idempotencyKey
    const body = req.body === undefined ? undefined : JSON.stringify(req.body)

    let last: Err<ApiError> | null = null
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const release = await options.limiter.acquire()
      let outcome: Attempt
      try {
        outcome = await attemptOnce(url, req.method, headers, body)
      } finally {
        release()
      }
      if (outcome.kind === 'response' && !retryableStatus.has(outcome.status)) {
        if (outcome.status < 300) {
          options.onRateLimitCleared?.()
          return ok({ status: outcome.status, body: outcome.body, idempotencyKey, attempts: attempt })
        }
        return describeFailure(req, outcome, idempotencyKey)
      }
      last = outcome.kind === 'response' ? describeFailure(req, outcome, idempotencyKey) : outcome.error
      if (attempt === maxAttempts) break
      const delay = retryDelay(outcome, attempt)
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

  type Attempt =
    | {
        kind: 'response'
        status: number
        statusText: string
        body: unknown
        text: string
        retryAfter: string | null
      }
    | { kind: 'failure'; error: Err<ApiError> }

  async function attemptOnce(
    url: string,
    method: string,
    headers: Record<string, string>,
    body?: string,
  ): Promise<Attempt> {
    const signal = AbortSignal.timeout(options.timeoutMs)
    try {
      const response = await doFetch(url, { method, headers, body, signal })
      const date = response.headers.get('date')
      if (date && options.onDate) options.onDate(Date.now(), date)
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
            `${method} ${new URL(url).pathname} got no answer within ${options.timeoutMs} ms from ${base}. The service may be slow or unreachable; apiTimeoutMs sets the limit.`,
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

  function retryDelay(outcome: Attempt, attempt: number): number | null {
    if (outcome.kind === 'response' && outcome.status === 429 && outcome.retryAfter !== null) {
      const ms = retryAfterMs(outcome.retryAfter, options.clock.now())
      if (ms !== null) return ms > maxRetryAfterMs ? null : ms
    }
    // Full jitter: a random wait up to an exponentially growing cap.
    const cap = Math.min(30_000, 500 * 2 ** (attempt - 1))
    return Math.max(50, random() * cap)
  }

  function describeFailure(
    req: PaymentsRequest,
    outcome: Extract<Attempt, { kind: 'response' }>,
    idempotencyKey: string | null,
  ): Err<ApiError> {
    const { scope, summary } = operations[req.operation]
    const masked = maskSecret(options.key.secret)
    const sent = outcome.text.split(options.key.secret).join(masked)
    const excerpt = sent.length > 600 ? `${sent.slice(0, 600)}…` : sent
    const head = `${req.method} ${req.path} (${summary}) answered ${outcome.status}${outcome.statusText ? ` ${outcome.statusText}` : ''}${excerpt ? `: ${excerpt}` : ' with an empty body'}.`
    const detail = {
      status: outcome.status,
      body: parseJson(sent),
      key: masked,
      keyName: options.key.name,
      scope,
      idempotencyKey,
    }
    const byCode = explainServiceCode(req, outcome.status, parseJson(sent), head, detail)
    if (byCode) return byCode
    switch (outcome.status) {
      case 401:
        return err(
          'unauthorized',
          `${head} The service did not accept the key "${options.key.name}" (${masked}): it may be revoked, mistyped, or a ${options.key.kind} key sent to the wrong base URL (${base}). Store a valid key with "watchdesk keys set" or in Settings.`,
          detail,
        )
      case 403:
        return err(
          'forbidden',
          `${head} The key "${options.key.name}" (${masked}) likely lacks the scope ${scope}, which ${summary} needs${options.businessId ? `, or has no access to business ${options.businessId}` : ''}. Use a key created with ${scope}.`,
          detail,
        )
      case 404:
      case 405:
        return err(
          req.operation === 'webhooks.list' || req.operation === 'webhooks.delete' ? 'not_found' : 'upstream',
          req.operation === 'webhooks.list' || req.operation === 'webhooks.delete'
            ? `${head} The path is the likely cause: the service publishes no ${req.operation === 'webhooks.list' ? 'list' : 'delete'} path, so watchdesk used the common one, ${req.method} ${req.path}${req.operation === 'webhooks.delete' ? ' with the id as a query parameter' : ''}. Set the path${req.operation === 'webhooks.delete' ? ' and parameter name' : ''} under Settings → Webhook endpoints (config webhookEndpoints).`
            : `${head} Check apiBaseUrl (${base}); the path should be under /v1.`,
          detail,
        )
      case 429:
        return err(
          'rate_limited',
          `${head} The key "${options.key.name}" (${masked}) is being rate limited and watchdesk gave up after ${maxAttempts} attempts. Check the key's plan in Settings or wait a minute.`,
          detail,
        )
      default:
        if (outcome.status >= 500)
          return err(
            'upstream',
            `${head} The service failed; watchdesk retried ${maxAttempts} times${idempotencyKey ? ' with the same idempotency key' : ''}.`,
            detail,
          )
        if (outcome.status >= 300 && outcome.status < 400)
          return err('upstream', `${head} The service redirected; check apiBaseUrl (${base}).`, detail)
        return err('bad_request', `${head} The service rejected the request.`, detail)
    }
  }

  /** What the service said decides the sentence (its error code first), before any guess from
   * the status about paths or scopes. Null when the body names nothing watchdesk can explain. */
  function explainServiceCode(
    req: PaymentsRequest,
    status: number,
    body: unknown,
    head: string,
    detail: Record<string, unknown>,
  ): Err<ApiError> | null {
    const said = serviceErrorOf(body)
    if (!said) return null
    const { scope, summary } = operations[req.operation]
    const masked = maskSecret(options.key.secret)
    const quoted = `${said.code ?? `${status}`}${said.message ? `: ${said.message}` : ''}`
    const withCode = { ...detail, serviceCode: said.code, missingScopes: said.scopes }
    switch (kindOfCode(said.code, said.scopes)) {
      case 'business':
        return err(
          'forbidden',
          `${head} The service refused the business${options.businessId ? ` ${options.businessId}` : ''} for the key "${options.key.name}" (${quoted}). Select a business this key can reach under Settings → Businesses, or use a key of that business.`,
          withCode,
        )
      case 'scope': {
        const missing = said.scopes.length > 0 ? said.scopes.join(', ') : scope
        return err(
          'forbidden',
          `${head} The key "${options.key.name}" (${masked}) lacks the scope ${missing}, which ${summary} needs (the service said ${quoted}). Create a key with ${missing} and store it.`,
          withCode,
        )
      }
      case 'key':
        return err(
          'unauthorized',
          `${head} The service did not accept the key "${options.key.name}" (${masked}): ${quoted}. Store a valid ${options.key.kind} key in Settings or with "watchdesk keys set".`,
          withCode,
        )
      case 'not_found':
        if (req.operation === 'webhooks.delete')
          return err(
            'not_found',
            `${head} The service says the endpoint is not there (${quoted}): it may have been deleted already. Refresh the list.`,
            withCode,
          )
        return err(
          'not_found',
          `${head} The service has nothing at ${req.method} ${req.path} (${quoted}). ${req.operation === 'webhooks.list' ? 'Set the list path under Settings → Webhook endpoints.' : `Check that apiBaseUrl (${base}) is the payments API's address.`}`,
          withCode,
        )
      case 'invalid':
        return err(
          'bad_request',
          `${head} The service rejected the request (${quoted}${said.param ? `; field ${said.param}` : ''}). Correct ${said.param ?? 'the request'} and try again.`,
          withCode,
        )
      default:
        return null
    }
  }

  return { request }
}

function urlOf(base: string, path: string, query?: Record<string, string>): string {
  const url = new URL(base + path)
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v)
  return url.toString()
}

function parseJson(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function retryAfterMs(value: string, now: number): number | null {
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}
