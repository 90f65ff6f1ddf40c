import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createLogger, silentLogger } from '../../../src/main/log'
import {
  createLimiter,
  createPaymentsClient,
  retryAfterMs,
  systemClock,
  virtualClock,
} from '../../../src/main/payments'
import type { ApiKey, Clock } from '../../../src/main/payments'
import type { PlanLimits } from '../../../src/shared/payments'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'

const sandboxKey: ApiKey = { name: 'sandbox', secret: 'sk_sandbox_4f8a1c2e9b7d6f3a', kind: 'sandbox' }
const business = 'biz_main'

function clientFor(
  url: string,
  options: {
    clock?: Clock
    limits?: PlanLimits
    key?: ApiKey
    businessId?: string | null
    random?: () => number
    log?: ReturnType<typeof createLogger>
  } = {},
) {
  const clock = options.clock ?? virtualClock()
  return createPaymentsClient({
    baseUrl: url,
    key: options.key ?? sandboxKey,
    businessId: options.businessId === undefined ? business : options.businessId,
    limiter: createLimiter(options.limits ?? sandboxLimits, clock),
    clock,
    timeoutMs: 2_000,
    log: options.log ?? silentLogger,
    random: options.random,
  })
}

const standinKeys = (limits = sandboxLimits) => ({
  [sandboxKey.secret]: { scopes: allScopes, limits, businesses: [business] },
})

describe('payments client', () => {
  const standin = usePaymentsStandin()

  it('sends bearer auth, the business id and JSON content type, and a fresh idempotency key only on writes', async () => {
    const s = await standin({ keys: standinKeys() })
    const client = clientFor(s.url)
    expect((await client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' })).ok).toBe(
      true,
    )
    const body = { url: 'https://hooks.example.com/wd', events: ['funding.completed'] }
    expect(
      (await client.request({ operation: 'webhooks.create', method: 'POST', path: '/v1/webhooks', body })).ok,
    ).toBe(true)
    expect(
      (await client.request({ operation: 'webhooks.create', method: 'POST', path: '/v1/webhooks', body })).ok,
    ).toBe(true)
    const [get, post1, post2] = s.requests
    expect(get!.headers.authorization).toBe(`Bearer ${sandboxKey.secret}`)
    expect(get!.headers['x-business-id']).toBe(business)
    expect(get!.headers['content-type']).toBeUndefined()
    expect(get!.headers['x-idempotency-key']).toBeUndefined()
    expect(post1!.headers.authorization).toBe(`Bearer ${sandboxKey.secret}`)
    expect(post1!.headers['content-type']).toBe('application/json')
    expect(post1!.headers['x-business-id']).toBe(business)
    expect(post1!.headers['x-idempotency-key']).toMatch(/^[0-9a-f-]{36}$/)
    expect(post2!.headers['x-idempotency-key']).toMatch(/^[0-9a-f-]{36}$/)
    expect(post2!.headers['x-idempotency-key']).not.toBe(post1!.headers['x-idempotency-key'])
    expect(JSON.parse(post1!.body)).toEqual(body)
  })

  it('omits X-Business-Id when no business is selected', async () => {
    const s = await standin({ keys: standinKeys() })
    await clientFor(s.url, { businessId: null }).request({
      operation: 'wallets.list',
      method: 'GET',
      path: '/v1/wallets',
    })
    expect(s.requests[0]!.headers['x-business-id']).toBeUndefined()
  })

  it('a retried create sends the same idempotency key and creates one endpoint (lost response, then 503)', async () => {
    for (const mode of ['drop', 503] as const) {
      const s = await standin({ keys: standinKeys() })
      s.failCreatesAfterCommit(1, mode)
      const result = await clientFor(s.url).request({
        operation: 'webhooks.create',
        method: 'POST',
        path: '/v1/webhooks',
        body: { url: 'https://hooks.example.com/wd', events: ['payout.failed'] },
      })
      expect(result.ok, JSON.stringify(result)).toBe(true)
      const posts = s.requests.filter((r) => r.method === 'POST')
      expect(posts).toHaveLength(2)
      expect(posts[1]!.headers['x-idempotency-key']).toBe(posts[0]!.headers['x-idempotency-key'])
      expect(s.endpoints.size).toBe(1)
      expect(result.ok && result.value.attempts).toBe(2)
    }
  })

  it('keeps a burst of 500 requests under the sandbox plan without a single 429', async () => {
    const clock = virtualClock()
    const s = await standin({ keys: standinKeys(), now: clock.now })
    const client = clientFor(s.url, { clock })
    const start = clock.now()
    const results = await Promise.all(
      Array.from({ length: 500 }, () =>
        client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' }),
      ),
    )
    expect(results.filter((r) => !r.ok)).toEqual([])
    expect(s.count429()).toBe(0)
    expect(s.requests).toHaveLength(500)
    // 100 per minute: the 500th request cannot have gone before four minutes had passed.
    expect(clock.now() - start).toBeGreaterThanOrEqual(4 * 60_000)
    // …and the limiter does not throttle far below the plan either.
    expect(clock.now() - start).toBeLessThan(4.5 * 60_000)
  })

  it('keeps the windows the service measures within the plan when answers take a random time to come and go', async () => {
    // Real clock, a plan small enough to bind within seconds; a request counts until one window
    // after its answer, so random latency on the way in and out cannot push a window over.
    const limits = { perMinute: 10_000, perSecond: 8 }
    let seed = 7
    const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 250
    const s = await standin({ keys: standinKeys(limits), latency: () => ({ in: random(), out: random() }) })
    const client = clientFor(s.url, { clock: systemClock, limits })
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' }),
      ),
    )
    expect(results.filter((r) => !r.ok)).toEqual([])
    expect(s.count429()).toBe(0)
    expect(s.requests).toHaveLength(30)
  })

  it('the stand-in does answer 429 to the 21st request in a second when the client ignores the plan', async () => {
    const clock = virtualClock()
    const s = await standin({ keys: standinKeys(), now: clock.now })
    const client = clientFor(s.url, { clock, limits: { perMinute: 1_000_000, perSecond: 1_000_000 } })
    // One after the other, in no virtual time: the sandbox plan allows 20 a second.
    for (let i = 0; i < 21; i++)
      await client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' })
    expect(s.count429()).toBe(1)
    expect(s.requests.map((r) => r.status)).toEqual([...Array<number>(20).fill(200), 429, 200])
  })

  it('honours Retry-After on a 429 and reports the key as rate limited', async () => {
    const clock = virtualClock()
    const s = await standin({ keys: standinKeys({ perMinute: 1, perSecond: 1 }), now: clock.now })
    const limitedUntil: number[] = []
    const client = createPaymentsClient({
      baseUrl: s.url,
      key: sandboxKey,
      businessId: business,
      limiter: createLimiter({ perMinute: 1000, perSecond: 1000 }, clock),
      clock,
      timeoutMs: 2000,
      log: silentLogger,
      onRateLimited: (until) => limitedUntil.push(until),
    })
    expect((await client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' })).ok).toBe(
      true,
    )
    const before = clock.now()
    const second = await client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' })
    expect(second.ok, JSON.stringify(second)).toBe(true)
    expect(s.requests.map((r) => r.status)).toEqual([200, 429, 200])
    // The stand-in said Retry-After: 60 (one request per minute).
    expect(clock.now() - before).toBeGreaterThanOrEqual(60_000)
    expect(limitedUntil).toHaveLength(1)
  })

  it('backs off with jitter when a 429 has no Retry-After, then gives up naming the key', async () => {
    const clock = virtualClock()
    const s = await standin({
      keys: standinKeys({ perMinute: 1, perSecond: 1 }),
      now: clock.now,
      sendRetryAfter: false,
    })
    const waits: number[] = []
    const sleeping: Clock = { now: clock.now, sleep: (ms) => (waits.push(ms), clock.sleep(ms)) }
    const client = createPaymentsClient({
      baseUrl: s.url,
      key: sandboxKey,
      businessId: business,
      limiter: createLimiter({ perMinute: 1000, perSecond: 1000 }, clock),
      clock: sleeping,
      timeoutMs: 2000,
      log: silentLogger,
      random: () => 0.5,
    })
    await client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' })
    const result = await client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.code).toBe('rate_limited')
    expect(result.error.message).toContain('sk_sandbox_…3f3a'.replace('3f3a', sandboxKey.secret.slice(-4)))
    expect(result.error.message).toContain('429')
    // Full jitter with random() = 0.5: half of 500, 1000, 2000 ms.
    expect(waits).toEqual([250, 500, 1000])
  })

  it('names status, body, key and the likely scope on a 403', async () => {
    const s = await standin({
      keys: {
        [sandboxKey.secret]: { scopes: ['webhooks:read'], limits: sandboxLimits, businesses: [business] },
      },
    })
    const result = await clientFor(s.url).request({
      operation: 'wallets.list',
      method: 'GET',
      path: '/v1/wallets',
    })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.error.code).toBe('forbidden')
    expect(result.error.message).toContain('403')
    expect(result.error.message).toContain('required_scope')
    expect(result.error.message).toContain('wallets:read')
    expect(result.error.message).toContain(`sk_sandbox_…${sandboxKey.secret.slice(-4)}`)
    expect(result.error.message).not.toContain(sandboxKey.secret)
    expect(result.error.detail).toMatchObject({ status: 403, scope: 'wallets:read', keyName: 'sandbox' })
  })

  it('names the key on a 401 without ever printing it', async () => {
    const s = await standin({ keys: {} })
    const result = await clientFor(s.url).request({
      operation: 'wallets.list',
      method: 'GET',
      path: '/v1/wallets',
    })
    expect(!result.ok && result.error.code).toBe('unauthorized')
    expect(!result.ok && result.error.message).toMatch(
      /401.*Invalid API key provided.*"sandbox" \(sk_sandbox_…/,
    )
    expect(JSON.stringify(result)).not.toContain(sandboxKey.secret)
  })

  it('says the service has nothing at the list path when listing endpoints answers not_found', async () => {
    const s = await standin({ keys: standinKeys(), listPath: '/v1/webhook_endpoints' })
    const result = await clientFor(s.url).request({
      operation: 'webhooks.list',
      method: 'GET',
      path: '/v1/webhooks',
    })
    expect(!result.ok && result.error.code).toBe('not_found')
    expect(!result.ok && result.error.message).toContain(
      'The service has nothing at GET /v1/webhooks (not_found: Unrecognized request URL',
    )
    expect(!result.ok && result.error.message).toContain(
      'Set the list path under Settings → Webhook endpoints.',
    )
  })

  it('gives up after the time-out with a sentence naming the limit', async () => {
    const server = createServer(() => {})
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const clock = virtualClock()
      const client = createPaymentsClient({
        baseUrl: url,
        key: sandboxKey,
        businessId: null,
        limiter: createLimiter(sandboxLimits, clock),
        clock,
        timeoutMs: 200,
        maxAttempts: 2,
        log: silentLogger,
      })
      const result = await client.request({ operation: 'wallets.list', method: 'GET', path: '/v1/wallets' })
      expect(!result.ok && result.error.code).toBe('unavailable')
      expect(!result.ok && result.error.message).toContain('within 200 ms')
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('3', 0)).toBe(3000)
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6_000)
    expect(retryAfterMs('soon', 0)).toBeNull()
  })
})
