import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { eventually, saveScreenshot, showView, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { allScopes, sandboxLimits, startPaymentsStandin } from '../support/payments-standin'
import type { Standin } from '../support/payments-standin'
import type { RunningConsole } from '../../src/main/serve'
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

/** Wallets with more fields than 1024 px holds, for a business of their own. */
const wideWallets = {
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

interface PaymentsConsole {
  s: Standin
  c: RunningConsole
}

describe('payments in Chromium', () => {
  // One console (and stand-in) per key for the file, started by the first test that asks for it:
  // the tests need the service's answers and what the console shows for them, not a fresh back end
  // each (a start and close of a console and a load of the app cost ~1.5 CPU-s). Each test moves to
  // its view within the console's document (showView) and counts the stand-in's requests and
  // endpoints from its own start, so it passes alone (`-t`) or after the others.
  const tempDir = useTempDir('watchdesk-test-', { per: 'file' })
  const startConsole = useTestConsole({ per: 'file' })
  const standins: Standin[] = []
  afterAll(async () => {
    for (const s of standins.splice(0)) await s.close()
  })
  const consoles = new Map<string, Promise<PaymentsConsole>>()
  // One page for the file.
  const openPage = useSharedPage(useChromium())

  async function start(key: string): Promise<PaymentsConsole> {
    const s = await startPaymentsStandin({
      keys: {
        [key]: {
          scopes: allScopes,
          limits: sandboxLimits,
          businesses: ['biz_acme', 'biz_globex', 'biz_wide'],
        },
      },
      wallets: {
        biz_acme: wallets,
        biz_globex: [{ id: 'wal_gx1', currency: 'gbp', available: 42 }],
        biz_wide: wideWallets,
      },
    })
    standins.push(s)
    const dataDir = tempDir()
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        apiBaseUrl: s.url,
        businesses: [
          { id: 'biz_acme', name: 'Acme Ltd' },
          { id: 'biz_globex', name: 'Globex' },
          { id: 'biz_wide', name: 'Wide Co' },
        ],
        selectedBusinessId: 'biz_acme',
      }),
    )
    const c = await startConsole({
      dataDir,
      secrets: createMemoryStore({ 'api-key:main': key }),
      rendererDir: join(root, 'out', 'renderer'),
    })
    return { s, c }
  }
  /** The file's console for `key`. */
  function consoleFor(key: string): Promise<PaymentsConsole> {
    if (!consoles.has(key)) consoles.set(key, start(key))
    return consoles.get(key)!
  }
  /** The file's console for `key`, and the page showing its `route`. */
  async function setup(key: string, route: string, viewport = { width: 1440, height: 900 }) {
    const { s, c } = await consoleFor(key)
    const page = await openPage(viewport)
    await showView(page, c, route)
    return { s, c, page }
  }

  it('shows the wallets of the selected business as columns, switches business, and keeps the raw JSON one click away', async () => {
    const { s, c } = await consoleFor(sandboxKey)
    let sinceAcme = s.requests.length
    const page = await openPage({ width: 1440, height: 900 })
    await showView(page, c, '#/wallets')
    const business = page.getByLabel('Business')
    // Acme, as config.json selects; a test before may have chosen another.
    if ((await business.inputValue()) !== 'biz_acme') {
      sinceAcme = s.requests.length
      await business.selectOption('biz_acme')
    }
    const table = page.locator('table.wallets-table')
    await eventually(() => table.locator('tbody tr').first().locator('td').first().textContent()).toBe(
      'wal_01HZX3',
    )
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
    const asked = s.requests.slice(sinceAcme)
    expect(asked.some((r) => r.path.endsWith('/wallets'))).toBe(true)
    expect(asked.every((r) => r.headers['x-business-id'] === 'biz_acme')).toBe(true)
    await page.getByRole('button', { name: 'Raw JSON' }).click()
    await eventually(() => page.getByRole('region', { name: 'Raw answer' }).textContent()).toContain(
      '"object": "list"',
    )
    expect(await page.locator('.live-banner').count()).toBe(0)
    await saveScreenshot(page, 'payments-wallets-1440x900')

    await business.selectOption('biz_globex')
    await eventually(() => table.locator('tbody tr').count()).toBe(1)
    expect(await table.locator('tbody td').first().textContent()).toBe('wal_gx1')
    expect(s.requests.at(-1)!.headers['x-business-id']).toBe('biz_globex')
  })

  it('shows every balance whole at 1024 px, however many fields a wallet has', async () => {
    const { page } = await setup(sandboxKey, '#/wallets', { width: 1024, height: 768 })
    await page.getByLabel('Business').selectOption('biz_wide')
    const table = page.locator('table.wallets-table')
    await eventually(() => table.locator('tbody td').first().textContent()).toBe('wal_01HZX1QK7M2N4P6R8T0V')
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

  it('creating an endpoint shows its secret once, with a copy button, and never again', async () => {
    const { s, c, page } = await setup(sandboxKey, '#/settings')
    const before = s.endpoints.size
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
    expect(s.endpoints.size).toBe(before + 1)
    const endpoint = [...s.endpoints.values()].at(-1)!
    expect(endpoint.url).toBe('https://hooks.example.com/ops')
    expect(endpoint.events).toHaveLength(6)
    expect(await page.getByTestId('secret-once').textContent()).toBe(endpoint.secret)
    expect(await once.getByRole('button', { name: 'Copy' }).count()).toBe(1)
    expect(await once.textContent()).toContain(`webhook-secret:${endpoint.id}`)
    await eventually(() => page.locator('table.endpoints-table tbody tr').count()).toBe(before + 1)
    expect(await page.locator('table.endpoints-table').textContent()).toContain('in keychain')
    await saveScreenshot(page, 'payments-secret-once-1440x900')

    await once.getByRole('button', { name: 'Done, hide it' }).click()
    await eventually(() => once.count()).toBe(0)
    expect(await page.content()).not.toContain(endpoint.secret)
    // The point of this test: a new document of the console does not show the secret again.
    await page.reload()
    await eventually(() => page.locator('table.endpoints-table tbody tr').count()).toBe(before + 1)
    expect(await page.content()).not.toContain(endpoint.secret)
    expect(await c.backend.context.secrets.get(`webhook-secret:${endpoint.id}`)).toEqual({
      ok: true,
      value: endpoint.secret,
    })
  })

  it('connects this console: says it is not connected when the address reaches nothing, and registers nothing for it', async () => {
    const { s, page } = await setup(sandboxKey, '#/settings')
    const endpointsBefore = s.endpoints.size
    const postsBefore = s.requests.filter((r) => r.method === 'POST').length
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
    expect(s.endpoints.size).toBe(endpointsBefore)
    expect(s.requests.filter((r) => r.method === 'POST')).toHaveLength(postsBefore)
    await result.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'payments-connect-1440x900')
  })

  it('says LIVE across the window with a live key, never shows the key, and asks before a write', async () => {
    const { s, c, page } = await setup(liveKey, '#/settings')
    const banner = page.locator('.live-banner')
    await eventually(() => banner.textContent()).toContain('LIVE')
    expect(await banner.textContent()).toContain('sk_live_…9f3a')
    expect(await page.evaluate(() => document.body.classList.contains('live-mode'))).toBe(true)
    // Same document from here on (the page keeps its token): moving between views changes the hash.
    await showView(page, c, '#/wallets')
    await eventually(() => page.locator('table.wallets-table tbody tr').count()).toBe(3)
    await eventually(() => banner.isVisible()).toBe(true)
    await saveScreenshot(page, 'payments-live-banner-1440x900')
    expect(await page.content()).not.toContain(liveKey)

    await showView(page, c, '#/settings')
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
})
