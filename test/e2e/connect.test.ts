import { join } from 'node:path'
import { existsSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { chainRegistry } from '../../src/shared/chains/registry'
import { createMemoryStore } from '../../src/main/secrets'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../support/payments-standin'
import { hex, jsonRpcNode, useRpcStandin } from '../support/rpc-standin'
import { useTempDir } from '../support/temp'
import { selfSignedCert, useTunnel } from '../support/tunnel'

const root = join(import.meta.dirname, '..', '..')
const key = 'sk_sandbox_e2e_connect_7a6b5c4d'
const uid = 'prj_e2e_0f1e2d3c4b5a'

/** Issue 10, done when: from an empty data dir, everything in Settings, each value tested, and the
 * console connected through a reverse proxy standing in for the tunnel. */
describe('connecting an account in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const standin = usePaymentsStandin()
  const rpcStandin = useRpcStandin()
  const tunnel = useTunnel()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())

  it('from an empty data dir: key, API and RPC base URLs and project uid in Settings, each tested, then Connect succeeds only through the public URL', async () => {
    const s = await standin({
      keys: { [key]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_acme'] } },
      wallets: { biz_acme: { data: [{ id: 'wal_1', currency: 'usd', available: 5 }] } },
    })
    const node = await rpcStandin((body, path) => {
      const chain = chainRegistry.find((c) => c.defaultSlug === path.split('/')[1])!
      return jsonRpcNode({
        eth_blockNumber: hex(100),
        eth_getBlockByNumber: () => ({ number: hex(100), timestamp: hex(Math.floor(Date.now() / 1000)) }),
        web3_clientVersion: 'standin/1.0',
        net_version: String(chain.serviceId),
        eth_chainId: hex(chain.serviceId),
      })(body, path)
    })
    const dataDir = tempDir()
    const certDir = tempDir()
    expect(existsSync(join(dataDir, 'config.json'))).toBe(false)
    const c = await startConsole({
      dataDir,
      secrets: createMemoryStore(),
      env: { NODE_EXTRA_CA_CERTS: selfSignedCert(certDir).certFile },
      rendererDir: join(root, 'out', 'renderer'),
    })
    const proxy = await tunnel(certDir, c.backend.services.webhooks.address().url!)
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${c.launchUrl}#/settings`)

    // The API base URL, given with /v1 as many dashboards show it: the test says what it calls.
    const connection = page.getByRole('form', { name: 'Connection settings' })
    await connection.getByLabel('apiBaseUrl').fill(`${s.url}/v1`)
    await connection.getByLabel('pollIntervalMs').fill('10')
    await connection.getByRole('button', { name: 'Save' }).click()
    await eventually(() => connection.getByRole('alert').textContent()).toContain('pollIntervalMs: Too small')
    await connection.getByLabel('pollIntervalMs').fill('')
    await connection.getByLabel('apiBaseUrl').fill(s.url)
    await connection.getByLabel('rpcBaseUrl').fill(node.url)
    await connection.getByRole('button', { name: 'Save' }).click()
    await eventually(() => connection.getByRole('status').textContent()).toBe('Saved to config.json')

    // A key, tested as it is stored.
    const keys = page.getByRole('region', { name: 'API keys and businesses' })
    await keys.getByLabel('Key name').fill('main')
    await keys.getByLabel('API key').fill(key)
    await keys.getByRole('button', { name: 'Store in keychain' }).click()
    await eventually(() => page.getByTestId('key-test').textContent()).toContain('The key "main" works')

    await page.locator('#project-uid').fill(uid)
    await page
      .getByRole('form', { name: 'Project uid' })
      .getByRole('button', { name: 'Store in keychain' })
      .click()
    await eventually(() => page.getByRole('form', { name: 'Project uid' }).textContent()).toContain(
      'stored …4b5a',
    )

    await connection.getByLabel('apiBaseUrl').fill(`${s.url}/v1`)
    await connection.getByRole('button', { name: 'Test' }).first().click()
    await eventually(() => page.getByTestId('api-test').textContent()).toContain('ends in /v1')
    expect(await page.getByTestId('api-test').textContent()).toContain('works')
    await connection.getByRole('button', { name: 'Test' }).nth(1).click()
    await eventually(() => page.getByTestId('rpc-test').getByRole('status').textContent()).toBe(
      '12 of 12 slugs answered with the right chain id.',
    )
    expect(await page.getByTestId('rpc-test').locator('tbody tr').count()).toBe(12)

    // Connect with an address that does not resolve: a failure sentence, not success.
    const connect = page.getByRole('form', { name: 'Connect this console' })
    await connect.getByLabel('Public URL').fill('https://watchdesk-test.invalid/')
    await connect.getByRole('button', { name: 'Connect' }).click()
    const result = page.getByTestId('connect-result')
    await eventually(() => result.getAttribute('data-outcome')).toBe('dns')
    expect(await result.textContent()).toContain('watchdesk-test.invalid does not resolve')

    // Through the proxy but on a path the listener does not serve: named as such, nothing registered.
    await connect.getByLabel('Public URL').fill(`${proxy.url}/hooks`)
    await connect.getByRole('button', { name: 'Connect' }).click()
    await eventually(() => result.getAttribute('data-outcome')).toBe('path')
    expect(await result.textContent()).toContain('The path /hooks does not reach /webhooks')
    await result.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'connect-wrong-path')
    expect(s.endpoints.size).toBe(0)

    // Through the reverse proxy: success only once the event arrived.
    await connect.getByLabel('Public URL').fill(proxy.url)
    await connect.getByRole('button', { name: 'Connect' }).click()
    await eventually(() => result.getAttribute('data-outcome')).toBe('arrived')
    expect(proxy.forwarded).toContain('POST /webhooks')
    const eventId = /evt_test_[0-9a-f]+/.exec((await result.textContent()) ?? '')![0]
    expect(c.backend.services.webhooks.store.get(eventId)).toBeTruthy()
    await eventually(() => page.getByTestId('public-url-status').textContent()).toContain(
      'reaches the listener',
    )
    await saveScreenshot(page, 'connect-settings')
    expect(s.endpoints.size).toBe(1)

    // Clean up endpoints: an endpoint at an address nothing answers is proposed, and deleted when chosen.
    const gone = await c.backend.services.payments.createEndpoint({
      url: 'https://watchdesk-gone.invalid/webhooks',
      events: ['funding.completed'],
    })
    expect(gone.ok).toBe(true)
    const goneId = gone.ok ? gone.value.endpoint.id : ''
    const cleanup = page.getByRole('region', { name: 'Clean up endpoints' })
    await cleanup.getByRole('button', { name: 'Clean up endpoints' }).click()
    const proposed = cleanup.getByRole('table', { name: 'Endpoints to clean up' })
    await eventually(() => proposed.locator('tbody tr').count()).toBe(1)
    expect(await proposed.textContent()).toContain('watchdesk-gone.invalid does not resolve')
    await cleanup.getByLabel(`Delete ${goneId}`).check()
    await saveScreenshot(page, 'connect-cleanup')
    const questions: string[] = []
    page.once('dialog', (d) => (questions.push(d.message()), void d.accept()))
    await cleanup.getByRole('button', { name: 'Delete 1 chosen' }).click()
    await eventually(() => cleanup.getByRole('status').textContent()).toContain('Deleted 1 endpoint(s)')
    expect(questions).toEqual([
      'Delete 1 webhook endpoint(s) at the service and remove their secrets from the keychain?',
    ])
    expect([...s.endpoints.values()].map((e) => e.url)).toEqual([`${proxy.url}/webhooks`])
  })
})
