import { describe, expect, it } from 'vitest'
import { Config } from '../../../src/shared/config'
import type { RateLimitState } from '../../../src/shared/contract/payments'
import { ok } from '../../../src/shared/result'
import { silentLogger } from '../../../src/main/log'
import { createPaymentsService, virtualClock } from '../../../src/main/payments'
import { createMemoryStore } from '../../../src/main/secrets'
import { allScopes, usePaymentsStandin } from '../../support/payments-standin'

const key = 'sk_sandbox_service_1234abcd'

describe('payments service', () => {
  const standin = usePaymentsStandin()

  function serviceFor(
    url: string,
    saved: Record<string, unknown>,
    onRateLimit: (s: RateLimitState) => void = () => {},
    clock = virtualClock(),
  ) {
    let current = { ...saved }
    const service = createPaymentsService({
      config: () => Config.parse({ apiBaseUrl: url, ...current }),
      savedConfig: () => current,
      saveConfig: async (next) => {
        current = next
        return ok(Config.parse({ apiBaseUrl: url, ...next }))
      },
      secrets: createMemoryStore({ 'api-key:main': key }),
      log: silentLogger,
      env: {},
      clock,
      onRateLimit,
    })
    return { service, clock, saved: () => current }
  }

  it('shows the key as rate limited while the service answers 429, and clears it when a call gets through', async () => {
    const clock = virtualClock()
    const s = await standin({
      keys: { [key]: { scopes: allScopes, limits: { perMinute: 1, perSecond: 1 }, businesses: ['biz_x'] } },
      now: clock.now,
    })
    const states: RateLimitState[] = []
    // The client is told the key may send 600/min; the service allows 1/min, so the second call meets a 429.
    const plan = { apiKeyPlans: { main: { plan: 'enterprise', perMinute: 600, perSecond: 50 } } }
    const { service } = serviceFor(s.url, plan, (st) => states.push(st), clock)
    expect((await service.wallets()).ok).toBe(true)
    expect((await service.wallets()).ok).toBe(true)
    expect(s.requests.map((r) => r.status)).toEqual([200, 429, 200])
    const limited = states.filter((st) => st.limitedUntil !== null)
    expect(new Set(limited.map((st) => st.last429At)).size).toBe(1)
    expect(limited[0]).toMatchObject({ keyName: 'main', masked: 'sk_sandbox_…abcd', count429: 1 })
    expect(limited[0]!.limitedUntil! - limited[0]!.last429At!).toBe(60_000)
    expect(states.at(-1)!.limitedUntil).toBeNull()
    const status = await service.status()
    expect(status.ok && status.value.rateLimit).toMatchObject({ limitedUntil: null, count429: 1 })
  })

  it('uses the plan set for the key: a custom enterprise plan replaces the one inferred from the prefix', async () => {
    const s = await standin({
      keys: {
        [key]: { scopes: allScopes, limits: { perMinute: 1e6, perSecond: 1e6 }, businesses: ['biz_x'] },
      },
    })
    const { service, saved } = serviceFor(s.url, {})
    expect((await service.status()).ok && (await service.status())).toMatchObject({
      value: { activeKey: { plan: 'sandbox', planInferred: true, perMinute: 100, perSecond: 20 } },
    })
    expect((await service.setPlan('main', { plan: 'enterprise', perMinute: 5000, perSecond: 250 })).ok).toBe(
      true,
    )
    expect(saved().apiKeyPlans).toEqual({ main: { plan: 'enterprise', perMinute: 5000, perSecond: 250 } })
    const status = await service.status()
    expect(status.ok && status.value.activeKey).toMatchObject({
      plan: 'enterprise',
      planInferred: false,
      perMinute: 5000,
      perSecond: 250,
    })
  })

  it('says what is missing when there is no key or no base URL', async () => {
    const empty = createPaymentsService({
      config: () => Config.parse({}),
      savedConfig: () => ({}),
      saveConfig: async () => ok(Config.parse({})),
      secrets: createMemoryStore(),
      log: silentLogger,
      env: {},
    })
    const noUrl = await empty.wallets()
    expect(!noUrl.ok && noUrl.error.message).toContain('apiBaseUrl is not set')
    const s = await standin({ keys: {} })
    const noKey = createPaymentsService({
      config: () => Config.parse({ apiBaseUrl: s.url }),
      savedConfig: () => ({}),
      saveConfig: async () => ok(Config.parse({})),
      secrets: createMemoryStore(),
      log: silentLogger,
      env: {},
    })
    const result = await noKey.wallets()
    expect(!result.ok && result.error.message).toContain('No API key is stored')
    expect(s.requests).toHaveLength(0)
  })
})
