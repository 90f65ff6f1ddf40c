import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../../src/main/log'
import { withEnvironmentSecrets } from '../../../src/main/secrets'
import { callApi, useTestConsole } from '../../support/console'
import { useTestKeychain } from '../../support/keychain'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../../support/payments-standin'
import type { StandinOptions } from '../../support/payments-standin'
import { useTempDir } from '../../support/temp'
import { selfSignedCert, useTunnel } from '../../support/tunnel'

const sandboxKey = 'sk_sandbox_7c1e5a9d0b3f4e2a8d61'
const liveKey = 'sk_live_2b8f6c4a1e9d7053aa9f3a'
const biz = 'biz_alpha'

describe('payments through the console', () => {
  const tempDir = useTempDir()
  const keychain = useTestKeychain()
  const standin = usePaymentsStandin()
  const startConsole = useTestConsole()
  const tunnel = useTunnel()

  async function setup(
    options: {
      config?: Record<string, unknown>
      standin?: Partial<StandinOptions>
      env?: NodeJS.ProcessEnv
    } = {},
  ) {
    const s = await standin({
      keys: {
        [sandboxKey]: { scopes: allScopes, limits: sandboxLimits, businesses: [biz, 'biz_beta'] },
        [liveKey]: { scopes: allScopes, limits: sandboxLimits, businesses: [biz] },
      },
      wallets: { [biz]: { data: [{ id: 'wal_1', currency: 'usd', balance: 1234.5 }] } },
      ...options.standin,
    })
    const dataDir = tempDir()
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        apiBaseUrl: s.url,
        businesses: [{ id: biz, name: 'Alpha' }],
        selectedBusinessId: biz,
        ...options.config,
      }),
    )
    const secrets = keychain()
    const logLines: string[] = []
    const c = await startConsole({
      dataDir,
      secrets,
      env: options.env ?? {},
      log: createLogger((l) => logLines.push(l), 'debug'),
    })
    return { s, c, secrets, logLines, dataDir }
  }

  it('stores an API key in the real keychain and answers only its masked form', async () => {
    const { c, secrets } = await setup()
    const set = await callApi(c, 'payments.keys.set', { name: 'main', key: sandboxKey })
    expect(set.json.ok, JSON.stringify(set.json)).toBe(true)
    expect((await secrets.get('api-key:main')).ok && (await secrets.get('api-key:main'))).toEqual({
      ok: true,
      value: sandboxKey,
    })
    const status = await callApi(c, 'payments.status')
    expect(status.json.value.activeKey).toMatchObject({
      name: 'main',
      kind: 'sandbox',
      masked: 'sk_sandbox_…8d61',
      plan: 'sandbox',
      perMinute: 100,
      perSecond: 20,
    })
    expect(JSON.stringify(set.json) + JSON.stringify(status.json)).not.toContain(sandboxKey)
  })

  it('uses WATCHDESK_API_KEY over the keychain, shows it as the key "env", and will not remove it', async () => {
    const s = await standin({
      keys: {
        [liveKey]: { scopes: allScopes, limits: sandboxLimits, businesses: [biz] },
        [sandboxKey]: { scopes: allScopes, limits: sandboxLimits, businesses: [biz] },
      },
    })
    const dataDir = tempDir()
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ apiBaseUrl: s.url }))
    const env = { WATCHDESK_API_KEY: liveKey, WATCHDESK_BUSINESS_ID: biz }
    const secrets = withEnvironmentSecrets(keychain(), env)
    const c = await startConsole({ dataDir, secrets, env })
    expect((await callApi(c, 'payments.keys.set', { name: 'other', key: sandboxKey })).json.ok).toBe(true)
    const status = (await callApi(c, 'payments.status')).json.value
    expect(status.activeKey).toMatchObject({
      name: 'env',
      source: 'environment',
      kind: 'live',
      masked: 'sk_live_…9f3a',
    })
    expect(status.live).toBe(true)
    s.requests.length = 0 // the stored key's own test
    await callApi(c, 'payments.wallets.list')
    expect(s.requests[0]!.headers.authorization).toBe(`Bearer ${liveKey}`)
    expect(s.requests[0]!.headers['x-business-id']).toBe(biz)
    const removed = await callApi(c, 'payments.keys.remove', { name: 'env' })
    expect(removed.json.error.message).toContain('unset that variable')
  })

  it('refuses a key with an unknown prefix and says which prefixes are valid', async () => {
    const { c, secrets } = await setup()
    const set = await callApi(c, 'payments.keys.set', { name: 'main', key: 'pk_test_1234567890abcdef' })
    expect(set.json.ok).toBe(false)
    expect(set.json.error.message).toContain('sk_sandbox_')
    expect(set.json.error.message).toContain('sk_live_')
    expect(await secrets.get('api-key:main')).toEqual({ ok: true, value: null })
  })

  it('sends the selected business as X-Business-Id and shows the wallets as columns', async () => {
    const { c, s } = await setup()
    await callApi(c, 'payments.keys.set', { name: 'main', key: sandboxKey })
    const wallets = await callApi(c, 'payments.wallets.list')
    expect(wallets.json.ok, JSON.stringify(wallets.json)).toBe(true)
    expect(s.requests[0]!.headers['x-business-id']).toBe(biz)
    expect(wallets.json.value.columns.map((c: { key: string }) => c.key)).toEqual([
      'id',
      'currency',
      'balance',
    ])
    expect(wallets.json.value.rows[0].map((c: { text: string }) => c.text)).toEqual([
      'wal_1',
      'USD',
      '1,234.5',
    ])
    expect(wallets.json.value.raw).toEqual({ data: [{ id: 'wal_1', currency: 'usd', balance: 1234.5 }] })
  })

  it('WATCHDESK_BUSINESS_ID chooses the business in serve mode', async () => {
    const { c, s } = await setup({ env: { WATCHDESK_BUSINESS_ID: 'biz_beta' } })
    await callApi(c, 'payments.keys.set', { name: 'main', key: sandboxKey })
    await callApi(c, 'payments.wallets.list')
    expect(s.requests[0]!.headers['x-business-id']).toBe('biz_beta')
    expect((await callApi(c, 'payments.status')).json.value).toMatchObject({
      selectedBusinessId: 'biz_beta',
      businessFromEnvironment: true,
    })
  })

  it('connects this console: registers the endpoint, stores its secret in the keychain, and the listener verifies a test event sent through the public URL', async () => {
    const certDir = tempDir()
    const { c, s, secrets } = await setup({ env: { NODE_EXTRA_CA_CERTS: selfSignedCert(certDir).certFile } })
    const proxy = await tunnel(certDir, c.backend.services.webhooks.address().url!)
    await callApi(c, 'payments.keys.set', { name: 'main', key: sandboxKey })
    const connected = await callApi(c, 'payments.webhooks.connect', {
      publicUrl: proxy.url,
      events: ['funding.completed', 'payout.failed'],
    })
    expect(connected.json.ok, JSON.stringify(connected.json)).toBe(true)
    const { endpoint, secretShownOnce, secretStored, test } = connected.json.value
    const issued = s.endpoints.get(endpoint.id)!
    expect(issued.url).toBe(`${proxy.url}/webhooks`)
    expect(proxy.forwarded).toEqual(['HEAD /webhooks', 'POST /webhooks'])
    expect(test.outcome).toBe('arrived')
    expect(secretShownOnce).toBe(issued.secret)
    expect(secretStored).toBe(true)
    expect(await secrets.get(`webhook-secret:${endpoint.id}`)).toEqual({ ok: true, value: issued.secret })
    expect(test.status).toBe(200)
    expect(test.arrivedAt).toBeGreaterThanOrEqual(test.sentAt)
    const stored = await callApi(c, 'events.get', { id: test.eventId })
    expect(stored.json.ok, JSON.stringify(stored.json)).toBe(true)
    expect(stored.json.value.endpoint).toBe(endpoint.id)
    // A test event through the API answers what the contract declares (callApi checks it).
    const again = await callApi(c, 'events.sendTest', { type: 'payout.failed', endpoint: endpoint.id })
    expect(again.json.value).toMatchObject({ status: 200, endpoint: endpoint.id, answer: '{}' })
  })

  it('checks the url is HTTPS and the description at most 200 characters before sending anything', async () => {
    const { c, s } = await setup()
    await callApi(c, 'payments.keys.set', { name: 'main', key: sandboxKey })
    s.requests.length = 0 // the key's own test when it was stored
    const plain = await callApi(c, 'payments.webhooks.create', {
      url: 'http://hooks.example.com/x',
      events: ['card.created'],
    })
    expect(plain.json.error.message).toContain('only to HTTPS URLs')
    const long = await callApi(c, 'payments.webhooks.create', {
      url: 'https://hooks.example.com/x',
      events: ['card.created'],
      description: 'x'.repeat(201),
    })
    expect(long.json.error.message).toContain('201 characters')
    const unknown = await callApi(c, 'payments.webhooks.create', {
      url: 'https://hooks.example.com/x',
      events: ['card.melted'],
    })
    expect(unknown.json.error.message).toContain('card.melted')
    expect(s.requests).toHaveLength(0)
    const exact = await callApi(c, 'payments.webhooks.create', {
      url: 'https://hooks.example.com/x',
      events: ['card.created'],
      description: 'é'.repeat(200),
    })
    expect(exact.json.ok, JSON.stringify(exact.json)).toBe(true)
  })

  it('deleting an endpoint uses the configured path and parameter and removes its secret from the keychain', async () => {
    const { c, s, secrets } = await setup({
      config: {
        webhookEndpoints: {
          listPath: '/v1/webhook_endpoints',
          deletePath: '/v1/webhook_endpoints/delete',
          deleteParam: 'endpoint_id',
        },
      },
      standin: {
        listPath: '/v1/webhook_endpoints',
        deletePath: '/v1/webhook_endpoints/delete',
        deleteParam: 'endpoint_id',
      },
    })
    await callApi(c, 'payments.keys.set', { name: 'main', key: sandboxKey })
    const created = await callApi(c, 'payments.webhooks.create', {
      url: 'https://hooks.example.com/x',
      events: ['report.ready'],
    })
    const id = created.json.value.endpoint.id
    const listed = await callApi(c, 'payments.webhooks.list')
    expect(listed.json.value.endpoints).toEqual([
      expect.objectContaining({ id, secretInKeychain: true, secret: expect.stringMatching(/^whsec_…/) }),
    ])
    const deleted = await callApi(c, 'payments.webhooks.delete', { id })
    expect(deleted.json).toEqual({ ok: true, value: { id, secretRemoved: true } })
    expect(s.requests.at(-1)).toMatchObject({
      method: 'DELETE',
      path: '/v1/webhook_endpoints/delete',
      query: { endpoint_id: id },
    })
    expect(await secrets.get(`webhook-secret:${id}`)).toEqual({ ok: true, value: null })
    expect(s.endpoints.size).toBe(0)
  })

  it('says the service has nothing at the list path, and where to set it, when listing answers not_found', async () => {
    const { c } = await setup({ standin: { listPath: '/v1/webhook_endpoints' } })
    await callApi(c, 'payments.keys.set', { name: 'main', key: sandboxKey })
    const listed = await callApi(c, 'payments.webhooks.list')
    expect(listed.json.error.code).toBe('not_found')
    expect(listed.json.error.message).toMatch(
      /GET \/v1\/webhooks .*404.*The service has nothing at GET \/v1\/webhooks \(not_found: .*Set the list path under Settings/,
    )
  })

  it('every write with a live key needs the operator to confirm it', async () => {
    const { c, s } = await setup()
    await callApi(c, 'payments.keys.set', { name: 'live', key: liveKey })
    expect((await callApi(c, 'payments.status')).json.value.live).toBe(true)
    const refused = await callApi(c, 'payments.webhooks.create', {
      url: 'https://hooks.example.com/x',
      events: ['card.created'],
    })
    expect(refused.json.error.code).toBe('forbidden')
    expect(refused.json.error.message).toContain('LIVE')
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(0)
    const confirmed = await callApi(c, 'payments.webhooks.create', {
      url: 'https://hooks.example.com/x',
      events: ['card.created'],
      confirmLive: true,
    })
    expect(confirmed.json.ok).toBe(true)
    const id = confirmed.json.value.endpoint.id
    expect((await callApi(c, 'payments.webhooks.delete', { id })).json.error.code).toBe('forbidden')
    expect((await callApi(c, 'payments.webhooks.delete', { id, confirmLive: true })).json.ok).toBe(true)
  })
})
