import { describe, expect, it } from 'vitest'
import { Config } from '../../src/shared/config'
import { paymentsMethods } from '../../src/shared/contract/payments'
import { maskSecret } from '../../src/shared/mask'
import {
  businessIdPattern,
  businessIdRule,
  checkEndpointInput,
  keyKindOf,
  knownEventTypes,
  limitsOf,
  PlanOverrideSchema,
  walletTable,
} from '../../src/shared/payments'

describe('key kinds', () => {
  it('takes the kind from the prefix', () => {
    expect(keyKindOf('sk_sandbox_abc123def456')).toEqual({ ok: true, value: 'sandbox' })
    expect(keyKindOf('sk_live_abc123def456')).toEqual({ ok: true, value: 'live' })
  })
  it('refuses any other prefix with a sentence naming the valid ones', () => {
    for (const bad of [
      'pk_live_abc123def456',
      'sk_test_abc123def456',
      'whsec_abc123def456',
      'sk_live_',
      'sk_live_a b c d e f',
    ]) {
      const kind = keyKindOf(bad)
      expect(kind.ok, bad).toBe(false)
    }
    const wrong = keyKindOf('sk_test_abc123def456')
    expect(!wrong.ok && wrong.error.message).toContain('sk_sandbox_ (sandbox')
    expect(!wrong.ok && wrong.error.message).toContain('sk_live_ (live')
  })
  it('masks to prefix and last four', () => {
    expect(maskSecret('sk_live_00000000009f3a')).toBe('sk_live_…9f3a')
  })
})

describe('plans (spec 8)', () => {
  it('infers sandbox 100/min 20/s and production 1,000/min 100/s from the key kind', () => {
    expect(limitsOf('sandbox')).toEqual({
      plan: 'sandbox',
      limits: { perMinute: 100, perSecond: 20 },
      inferred: true,
    })
    expect(limitsOf('live')).toEqual({
      plan: 'production',
      limits: { perMinute: 1000, perSecond: 100 },
      inferred: true,
    })
  })
  it('takes an edited plan, and enterprise only with its custom limits', () => {
    expect(limitsOf('live', { plan: 'sandbox' }).limits).toEqual({ perMinute: 100, perSecond: 20 })
    expect(limitsOf('live', { plan: 'enterprise', perMinute: 5000, perSecond: 300 })).toMatchObject({
      plan: 'enterprise',
      inferred: false,
      limits: { perMinute: 5000, perSecond: 300 },
    })
    expect(PlanOverrideSchema.safeParse({ plan: 'enterprise' }).success).toBe(false)
  })
})

describe('endpoint input (spec 2.1, 8)', () => {
  const ok = { url: 'https://hooks.example.com/x', events: ['funding.completed'] }
  it('offers the fifteen event types of the catalogue', () => {
    expect(knownEventTypes).toHaveLength(15)
  })
  it('accepts 200 characters and refuses 201, counting characters not bytes', () => {
    expect(checkEndpointInput({ ...ok, description: '€'.repeat(200) }).ok).toBe(true)
    const long = checkEndpointInput({ ...ok, description: '€'.repeat(201) })
    expect(!long.ok && long.error.message).toContain('201 characters')
  })
  it('refuses http, a non-URL and an empty event list', () => {
    expect(checkEndpointInput({ ...ok, url: 'http://hooks.example.com' }).ok).toBe(false)
    expect(checkEndpointInput({ ...ok, url: 'hooks.example.com' }).ok).toBe(false)
    expect(checkEndpointInput({ ...ok, events: [] }).ok).toBe(false)
  })
})

describe('wallet shapes (not shown by the spec)', () => {
  const wallets = [
    { id: 'wal_1', currency: 'usd', balance: 1234567.5, status: 'active' },
    { id: 'wal_2', currency: 'usdc', balance: '0.000001', extra: { a: 1 } },
  ]
  it('accepts a bare array and an object wrapping one, with the same columns', () => {
    for (const body of [
      wallets,
      { data: wallets },
      { object: 'list', wallets },
      { has_more: false, items: wallets },
    ]) {
      const table = walletTable(body)
      expect(table.ok).toBe(true)
      if (!table.ok) return
      expect(table.value.columns.map((c) => c.key)).toEqual(['id', 'currency', 'balance', 'status', 'extra'])
      expect(table.value.rows[0]!.map((c) => c.text)).toEqual(['wal_1', 'USD', '1,234,567.5', 'active', '—'])
      expect(table.value.rows[1]!.map((c) => c.text)).toEqual(['wal_2', 'USDC', '0.000001', '—', '{"a":1}'])
      expect(table.value.columns.find((c) => c.key === 'balance')!.kind).toBe('amount')
    }
  })
  it('formats nested balances and keeps big decimal strings exact', () => {
    const table = walletTable([
      {
        id: 'w',
        balances: [
          { currency: 'USD', amount: 10 },
          { currency: 'USDC', amount: '123456789012345678.25' },
        ],
      },
    ])
    expect(table.ok && table.value.rows[0]![1]!.text).toBe('10 USD · 123,456,789,012,345,678.25 USDC')
  })
  it('says plainly when there is no list in the answer', () => {
    const table = walletTable({ message: 'hello' })
    expect(!table.ok && table.error.message).toContain('keys: message')
  })
})

describe('payments config keys', () => {
  it('defaults the endpoint list and delete paths to the common convention', () => {
    expect(Config.parse({}).webhookEndpoints).toEqual({
      listPath: '/v1/webhooks',
      deletePath: '/v1/webhooks',
      deleteParam: 'id',
    })
  })
  it('refuses a business id without biz_, with the same sentence in the config and the contract', () => {
    const inConfig = Config.safeParse({ businesses: [{ id: 'acme', name: 'Acme' }] })
    const selected = Config.safeParse({ selectedBusinessId: 'acme' })
    const inContract = paymentsMethods['payments.businesses.set'].request.safeParse({
      businesses: [{ id: 'acme', name: 'Acme' }],
      selectedBusinessId: null,
    })
    for (const parsed of [inConfig, selected, inContract]) {
      expect(parsed.success).toBe(false)
      expect(parsed.error!.issues.map((i) => i.message)).toEqual([businessIdRule])
    }
    expect(businessIdPattern.test('biz_7Q2M-x_1')).toBe(true)
    expect(Config.parse({ businesses: [{ id: 'biz_7Q2M-x_1' }] }).businesses).toEqual([
      { id: 'biz_7Q2M-x_1', name: '' },
    ])
  })
  it('takes the endpoint paths the contract accepts as the config stores them, and names a bad parameter', () => {
    const paths = { listPath: '/v2/hooks', deletePath: '/v2/hooks/delete', deleteParam: 'hook_id' }
    expect(paymentsMethods['payments.endpointPaths.set'].request.parse(paths)).toEqual(paths)
    expect(Config.parse({ webhookEndpoints: paths }).webhookEndpoints).toEqual(paths)
    const bad = paymentsMethods['payments.endpointPaths.set'].request.safeParse({
      ...paths,
      deleteParam: 'a b',
    })
    expect(bad.error!.issues.map((i) => i.message)).toEqual([
      'a query parameter name is letters, digits, _ . -',
    ])
    // The contract wants all three; the config fills what is left out with the convention.
    expect(paymentsMethods['payments.endpointPaths.set'].request.safeParse({ listPath: '/x' }).success).toBe(
      false,
    )
    expect(Config.parse({ webhookEndpoints: { listPath: '/x' } }).webhookEndpoints).toEqual({
      listPath: '/x',
      deletePath: '/v1/webhooks',
      deleteParam: 'id',
    })
  })
})
