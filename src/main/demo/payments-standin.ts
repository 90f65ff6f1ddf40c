import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { PlanLimits, Scope } from '../../shared/payments'

/** A local stand-in of the payments API, used by the tests and by `npm run demo` (sandbox mode) (spec 4.1, 5.1, 7.1, 8) on 127.0.0.1, port 0: key and
 * scope checks, X-Business-Id, the plan's rate limits answered with 429 + Retry-After,
 * X-Idempotency-Key replay, the HTTPS-only url and 200-character description of an endpoint.
 * It records every request as received so tests can assert the exact headers. */

export interface StandinKey {
  scopes: Scope[]
  limits: PlanLimits
  businesses: string[]
}

export interface StandinOptions {
  keys: Record<string, StandinKey>
  /** Wallets body per business id (any shape: the spec does not show one). */
  wallets?: Record<string, unknown>
  listPath?: string
  deletePath?: string
  deleteParam?: string
  /** Shared with the client under test so minutes of limits pass in milliseconds. */
  now?: () => number
  /** Answer 429 with a Retry-After header (seconds). */
  sendRetryAfter?: boolean
  /** Simulated network: ms before a request counts as arrived, and before its answer leaves. */
  latency?: () => { in: number; out: number }
}

export interface RecordedRequest {
  method: string
  path: string
  query: Record<string, string>
  headers: IncomingHttpHeaders
  body: string
  status: number
  at: number
}

export interface StoredEndpoint {
  id: string
  url: string
  events: string[]
  description?: string
  /** `active` (the only value the spec shows); a test sets another to stand for a disabled one. */
  status: string
  secret: string
  created_at: string
  business: string | null
}

export interface Standin {
  /** The base URL (config apiBaseUrl); paths start with /v1. */
  url: string
  requests: RecordedRequest[]
  endpoints: Map<string, StoredEndpoint>
  count429(): number
  /** The next `n` POST /v1/webhooks are processed, then answered with `mode` (503, or a dropped connection). */
  failCreatesAfterCommit(n: number, mode: 503 | 'drop'): void
  /** Answer every request with this status and body until cleared (null). */
  forceStatus(status: number | null, body?: unknown): void
  close(): Promise<void>
}

export const sandboxLimits: PlanLimits = { perMinute: 100, perSecond: 20 }
export const allScopes: Scope[] = ['wallets:read', 'webhooks:read', 'webhooks:write']

export async function startPaymentsStandin(options: StandinOptions): Promise<Standin> {
  const now = options.now ?? Date.now
  const listPath = options.listPath ?? '/v1/webhooks'
  const deletePath = options.deletePath ?? '/v1/webhooks'
  const deleteParam = options.deleteParam ?? 'id'
  const requests: RecordedRequest[] = []
  const endpoints = new Map<string, StoredEndpoint>()
  const arrivals = new Map<string, number[]>()
  const idempotent = new Map<string, { fingerprint: string; status: number; body: unknown }>()
  let createFailures: { left: number; mode: 503 | 'drop' } = { left: 0, mode: 503 }
  let forced: { status: number; body: unknown } | null = null

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const delay = options.latency?.()
      if (!delay) return handle(req, res, body)
      setTimeout(() => handle(req, delayed(res, delay.out), body), delay.in)
    })
  })

  function handle(req: IncomingMessage, res: ServerResponse, body: string) {
    const url = new URL(req.url ?? '/', 'http://standin')
    const record: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      status: 0,
      at: now(),
    }
    requests.push(record)
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      record.status = status
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(payload === undefined ? '' : JSON.stringify(payload))
    }
    const fail = (
      status: number,
      type: string,
      message: string,
      extra: Record<string, unknown> = {},
      headers: Record<string, string> = {},
    ) => send(status, { error: { type, message, ...extra } }, headers)

    if (forced) return send(forced.status, forced.body)
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')
    const key = auth ? options.keys[auth[1]!] : undefined
    if (!auth || !key) return fail(401, 'authentication_error', 'Invalid API key provided.')

    const t = now()
    const freeAt = rateWindow(arrivals, auth[1]!, key.limits, t)
    if (freeAt !== null) {
      const headers: Record<string, string> =
        options.sendRetryAfter === false
          ? {}
          : { 'retry-after': String(Math.max(1, Math.ceil((freeAt - t) / 1000))) }
      return fail(429, 'rate_limit_error', 'Too many requests.', {}, headers)
    }

    const business = (req.headers['x-business-id'] as string | undefined) ?? null
    if (business !== null && !key.businesses.includes(business))
      return fail(403, 'permission_error', `No access to business ${business}.`)
    if (business === null && key.businesses.length > 1)
      return fail(
        400,
        'invalid_request_error',
        'X-Business-Id is required for a key with several businesses.',
      )
    const scoped = (scope: Scope) => {
      if (key.scopes.includes(scope)) return true
      fail(403, 'permission_error', 'This API key does not have the required scope.', {
        required_scope: scope,
      })
      return false
    }
    const route = `${req.method} ${url.pathname}`

    if (route === 'GET /v1/wallets') {
      if (!scoped('wallets:read')) return
      return send(200, options.wallets?.[business ?? key.businesses[0] ?? ''] ?? { data: [] })
    }
    if (route === 'POST /v1/webhooks') {
      if (!scoped('webhooks:write')) return
      if (!/^application\/json\b/.test(req.headers['content-type'] ?? ''))
        return fail(415, 'invalid_request_error', 'Content-Type must be application/json.')
      const idemKey = req.headers['x-idempotency-key'] as string | undefined
      const replay = idemKey ? idempotent.get(`${auth[1]}:${idemKey}`) : undefined
      if (replay) {
        if (replay.fingerprint !== body)
          return fail(422, 'idempotency_error', 'This idempotency key was used with another body.')
        return send(replay.status, replay.body, { 'idempotent-replayed': 'true' })
      }
      const created = createEndpoint(endpoints, body, business)
      if (idemKey) idempotent.set(`${auth[1]}:${idemKey}`, { fingerprint: body, ...created })
      if (createFailures.left > 0 && created.status === 201) {
        createFailures.left--
        if (createFailures.mode === 'drop') {
          record.status = -1
          return req.socket.destroy()
        }
        return fail(503, 'api_error', 'Temporarily unavailable.')
      }
      return send(created.status, created.body)
    }
    if (req.method === 'GET' && url.pathname === listPath) {
      if (!scoped('webhooks:read')) return
      const list = [...endpoints.values()]
        .filter((e) => e.business === business)
        .map(({ business: _b, secret, ...rest }) => ({ ...rest, secret: `whsec_…${secret.slice(-4)}` }))
      return send(200, { data: list, has_more: false })
    }
    if (req.method === 'DELETE' && url.pathname === deletePath) {
      if (!scoped('webhooks:write')) return
      const id = url.searchParams.get(deleteParam)
      if (!id) return fail(400, 'invalid_request_error', `Missing query parameter ${deleteParam}.`)
      if (!endpoints.delete(id)) return fail(404, 'not_found', `No webhook endpoint ${id}.`)
      return send(200, { id, deleted: true })
    }
    return fail(404, 'not_found', `Unrecognized request URL (${req.method}: ${url.pathname}).`)
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    endpoints,
    count429: () => requests.filter((r) => r.status === 429).length,
    failCreatesAfterCommit: (n, mode) => {
      createFailures = { left: n, mode }
    },
    forceStatus: (status, body) => {
      forced = status === null ? null : { status, body }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** Holds the answer back for `ms` (the way back over a slow network). */
function delayed(res: ServerResponse, ms: number): ServerResponse {
  const end = res.end.bind(res)
  res.end = ((...args: Parameters<ServerResponse['end']>) => {
    setTimeout(() => end(...args), ms)
    return res
  }) as ServerResponse['end']
  return res
}

/** POST /v1/webhooks: validates the body as the service does and stores the endpoint. */
function createEndpoint(
  endpoints: Map<string, StoredEndpoint>,
  text: string,
  business: string | null,
): { status: number; body: unknown } {
  let input: Record<string, unknown>
  try {
    input = JSON.parse(text) as Record<string, unknown>
  } catch {
    return { status: 400, body: { error: { type: 'invalid_request_error', message: 'Body is not JSON.' } } }
  }
  const invalid = (message: string, param: string) => ({
    status: 400,
    body: { error: { type: 'invalid_request_error', message, param } },
  })
  if (typeof input.url !== 'string' || !input.url.startsWith('https://'))
    return invalid('url must be an HTTPS URL.', 'url')
  if (!Array.isArray(input.events) || input.events.length === 0)
    return invalid('events is required.', 'events')
  if (
    input.description !== undefined &&
    (typeof input.description !== 'string' || [...input.description].length > 200)
  ) {
    return invalid('description must be at most 200 characters.', 'description')
  }
  const endpoint: StoredEndpoint = {
    id: `wh_${randomBytes(8).toString('hex')}`,
    url: input.url,
    events: input.events as string[],
    ...(typeof input.description === 'string' ? { description: input.description } : {}),
    status: 'active',
    secret: `whsec_${randomBytes(24).toString('hex')}`,
    created_at: new Date().toISOString(),
    business,
  }
  endpoints.set(endpoint.id, endpoint)
  const { business: _b, ...body } = endpoint
  return { status: 201, body }
}

/** Spec 8: per key, sustained per minute and burst per second, as sliding windows. Records this
 * request and answers when the key may call again, or null when it is within its limits. */
function rateWindow(
  arrivals: Map<string, number[]>,
  key: string,
  limits: PlanLimits,
  t: number,
): number | null {
  const times = arrivals.get(key) ?? []
  arrivals.set(key, times)
  while (times.length > 0 && times[0]! <= t - 60_000) times.shift()
  const inSecond = times.filter((x) => x > t - 1000)
  times.push(t)
  const secondFull = inSecond.length >= limits.perSecond
  const minuteFull = times.length - 1 >= limits.perMinute
  if (!secondFull && !minuteFull) return null
  return Math.max(secondFull ? inSecond[0]! + 1000 : 0, minuteFull ? times[0]! + 60_000 : 0)
}
