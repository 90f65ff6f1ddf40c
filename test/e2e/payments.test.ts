import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { allScopes, sandboxLimits, usePaymentsStandin } from '../support/payments-standin'
import { useTempDir } from '../support/temp'
import { clippedCells } from '../support/layout'

const root = join(import.meta.dirname, '..', '..')
const sandboxKey = 'sk_sandbox_e2e_51c0ffee7d2a'
const liveKey = 'sk_live_e2e_0badcafe9f3a'
const wallets = {
  object: 'list',
  data: [
    {
      id: 'wal_01HZX3',
      currency: 'usd',
      available: 1250000.5,
      pending: '300.00',
      status: 'active',
      created_at: '2026-11-02T09:14:00Z',
    },
    {
      id: 'wal_01HZX4',
      currency: 'usdc',
      available: '98231.123456',
      pending: 0,
      status: 'active',
      created_at: '2026-11-03T11:02:00Z',
    },
    {
      id: 'wal_01HZX5',
      currency: 'eur',
      available: 0,
      pending: 12.5,
      status: 'frozen',
      created_at: '2026-11-05T16:40:00Z',
    },
  ],
}

describe('payments in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const standin = usePaymentsStandin()
  // One page for the file: each test loads its own console's document in it.
  const openPage = useSharedPage(useChromium())

  async function setup(key: string) {
    const s = await standin({
      keys: { [key]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_acme', 'biz_globex'] } },
      wallets: { biz_acme: wallets, biz_globex: [{ id: 'wal_gx1', currency: 'gbp', available: 42 }] },
    })
    const dataDir = tempDir()
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        apiBaseUrl: s.url,
        businesses: [
          { id: 'biz_acme', name: 'Acme Ltd' },
          { id: 'biz_globex', name: 'Globex' },
        ],
        selectedBusinessId: 'biz_acme',
      }),
    )
    const c = await startConsole({
      dataDir,
      secrets: createMemoryStore({ 'api-key:main': key }),
      rendererDir: join(root, 'out', 'renderer'),
    })
    const page = await openPage({ width: 1440, height: 900 })
    return { s, c, page }
  }

  it('shows the wallets of the selected business as columns, switches business, and keeps the raw JSON one click away', async () => {
    const { s, c, page } = await setup(sandboxKey)
    await page.goto(`${c.launchUrl}#/wallets`)
    const table = page.locator('table.wallets-table')
    await eventually(() => table.locator('tbody tr').count()).toBe(3)
    expect(await table.locator('thead th').allTextContents()).toEqual([
      'id',
      'currency',
      'available',
      'pending',
      'status',
      'created_at',
    ])
    expect(await table.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
      'wal_01HZX3',
      'USD',
      '1,250,000.5',
      '300.00',
      'active',
      '2026-11-02T09:14:00Z',
    ])
    expect(s.requests.every((r) => r.headers['x-business-id'] === 'biz_acme')).toBe(true)
    await page.getByRole('button', { name: 'Raw JSON' }).click()
    await eventually(() => page.getByRole('region', { name: 'Raw answer' }).textContent()).toContain(
      '"object": "list"',
    )
    expect(await page.locator('.live-banner').count()).toBe(0)
    await saveScreenshot(page, 'payments-wallets-1440x900')

    await page.getByLabel('Business').selectOption('biz_globex')
    await eventually(() => table.locator('tbody tr').count()).toBe(1)
    expect(await table.locator('tbody td').first().textContent()).toBe('wal_gx1')
    expect(s.requests.at(-1)!.headers['x-business-id']).toBe('biz_globex')
  })

  it('shows every balance whole at 1024 px, however many fields a wallet has', async () => {
    const wide = {
      data: [1, 2, 3].map((i) => ({
        id: `wal_01HZX${i}QK7M2N4P6R8T0V`,
        currency: 'usdc',
        available: `${i}2345678901.123456`,
        pending: `${i}98765432.654321`,
        reserved: 1_250_000.5 * i,
        status: 'active',
        network: 'ethereum-mainnet',
        address: `0x${String(i).repeat(40)}`,
        label: 'treasury settlement wallet for card payouts',
        created_at: '2026-11-02T09:14:00Z',
        updated_at: '2026-11-24T13:07:01Z',
      })),
    }
    const s = await standin({
      keys: { [sandboxKey]: { scopes: allScopes, limits: sandboxLimits, businesses: ['biz_acme'] } },
      wallets: { biz_acme: wide },
    })
    const dataDir = tempDir()
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({ apiBaseUrl: s.url, selectedBusinessId: 'biz_acme' }),
    )
    const c = await startConsole({
      dataDir,
      secrets: createMemoryStore({ 'api-key:main': sandboxKey }),
      rendererDir: join(root, 'out', 'renderer'),
    })
    const page = await openPage({ width: 1024, height: 768 })
    await page.goto(`${c.launchUrl}#/wallets`)
    const table = page.locator('table.wallets-table')
    await eventually(() => table.locator('tbody tr').count()).toBe(3)
    expect(await table.locator('tbody td.num').count()).toBe(9)
    expect(await clippedCells(table, 'td.num, th.num'), 'balances cut at 1024 px').toEqual([])
    expect(await clippedCells(page, 'main.content, .table-panel'), 'the table scrolls sideways').toEqual([])
    // The fields that gave way are named, and whole in Raw JSON.
    expect(await page.locator('.table-panel .hint').textContent()).toContain(
      'at this width network, address, label, created_at, updated_at are in Raw JSON',
    )
    await saveScreenshot(page, 'wallets-wide-1024x768')
  })

  it('says LIVE across the window with a live key, never shows the key, and asks before a write', async () => {
    const { s, c, page } = await setup(liveKey)
    await page.goto(`${c.launchUrl}#/settings`)
    const banner = page.locator('.live-banner')
    await eventually(() => banner.textContent()).toContain('LIVE')
    expect(await banner.textContent()).toContain('sk_live_…9f3a')
    expect(await page.evaluate(() => document.body.classList.contains('live-mode'))).toBe(true)
    // Same document from here on (the page keeps its token): moving between views changes the hash.
    await page.goto(`${c.url}/#/wallets`)
    await eventually(() => page.locator('table.wallets-table tbody tr').count()).toBe(3)
    await eventually(() => banner.isVisible()).toBe(true)
    await saveScreenshot(page, 'payments-live-banner-1440x900')
    expect(await page.content()).not.toContain(liveKey)

    await page.goto(`${c.url}/#/settings`)
    await eventually(() => page.locator('table.keys-table tbody tr').count()).toBe(1)
    expect(await page.locator('table.keys-table tbody tr').textContent()).toMatch(
      /main.*sk_live_…9f3a.*live.*production.*1,000.*100/,
    )
    await saveScreenshot(page, 'payments-settings-keys-live-1440x900')
    const form = page.getByRole('form', { name: 'Create endpoint' })
    await form.getByLabel('Endpoint URL').fill('https://hooks.example.com/live')
    await form.getByLabel('card.created').check()
    const dialogs: string[] = []
    page.once('dialog', (d) => {
      dialogs.push(d.message())
      void d.dismiss()
    })
    await form.getByRole('button', { name: 'Create endpoint' }).click()
    await eventually(() => dialogs.length).toBe(1)
    expect(dialogs[0]).toContain('LIVE KEY sk_live_…9f3a')
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(0)
    page.once('dialog', (d) => void d.accept())
    await form.getByRole('button', { name: 'Create endpoint' }).click()
    await eventually(() => s.endpoints.size).toBe(1)
  })

  it('creating an endpoint shows its secret once, with a copy button, and never again', async () => {
    const { s, c, page } = await setup(sandboxKey)
    await page.goto(`${c.launchUrl}#/settings`)
    const form = page.getByRole('form', { name: 'Create endpoint' })
    await form.getByLabel('Endpoint URL').fill('http://hooks.example.com/plain')
    await eventually(() => form.locator('.field-error').textContent()).toContain('only to HTTPS URLs')
    expect(await form.getByRole('button', { name: 'Create endpoint' }).isDisabled()).toBe(true)
    await form.getByLabel('Endpoint URL').fill('https://hooks.example.com/ops')
    await form.getByRole('checkbox', { name: 'Payments' }).check()
    await form.getByLabel('Description').fill('x'.repeat(201))
    await eventually(() => form.locator('.counter').textContent()).toBe('201 / 200')
    expect(await form.getByRole('button', { name: 'Create endpoint' }).isDisabled()).toBe(true)
    await form.getByLabel('Description').fill('Ops on-call receiver')
    await form.getByRole('button', { name: 'Create endpoint' }).click()

    const once = page.getByRole('region', { name: 'Endpoint secret, shown once' })
    await eventually(() => once.count()).toBe(1)
    const [endpoint] = [...s.endpoints.values()]
    expect(endpoint!.events).toHaveLength(6)
    expect(await page.getByTestId('secret-once').textContent()).toBe(endpoint!.secret)
    expect(await once.getByRole('button', { name: 'Copy' }).count()).toBe(1)
    expect(await once.textContent()).toContain(`webhook-secret:${endpoint!.id}`)
    await eventually(() => page.locator('table.endpoints-table tbody tr').count()).toBe(1)
    expect(await page.locator('table.endpoints-table').textContent()).toContain('in keychain')
    await saveScreenshot(page, 'payments-secret-once-1440x900')

    await once.getByRole('button', { name: 'Done, hide it' }).click()
    await eventually(() => once.count()).toBe(0)
    expect(await page.content()).not.toContain(endpoint!.secret)
    await page.reload()
    await eventually(() => page.locator('table.endpoints-table tbody tr').count()).toBe(1)
    expect(await page.content()).not.toContain(endpoint!.secret)
    expect(await c.backend.context.secrets.get(`webhook-secret:${endpoint!.id}`)).toEqual({
      ok: true,
      value: endpoint!.secret,
    })
  })

  it('connects this console: says it is not connected when the address reaches nothing, and registers nothing for it', async () => {
    const { s, page, c } = await setup(sandboxKey)
    await page.goto(`${c.launchUrl}#/settings`)
    const form = page.getByRole('form', { name: 'Connect this console' })
    await form.getByLabel('Public URL').fill('https://watchdesk-test.invalid')
    await form.getByRole('button', { name: 'Connect' }).click()
    const result = page.getByTestId('connect-result')
    await eventually(() => result.getAttribute('data-outcome')).toBe('dns')
    expect(await result.textContent()).toMatch(
      /^Not connected\. The public URL's host watchdesk-test\.invalid does not resolve .*Check the address for typos/,
    )
    expect(await result.textContent()).toContain('Nothing was registered at the service.')
    // Checked before registering: the service never heard of that address.
    expect(s.endpoints.size).toBe(0)
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(0)
    await result.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'payments-connect-1440x900')
  })
})
