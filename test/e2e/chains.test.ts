import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { useAnvil } from '../support/anvil'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { hex, jsonRpcNode, useRpcStandin } from '../support/rpc-standin'
import { useServeProcess } from '../support/serve-process'
import { useTempDir } from '../support/temp'

/** `npm run demo` as an operator runs it (bin/watchdesk serve --demo, the built bundle), seen in
 * Chromium at the desktop window's size. */

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** The demo's first minute: twelve anvil nodes start, each chain needs polls before it is called
 * healthy, and Ethereum's head moves every 12 s. On a loaded machine (CI) that took longer than
 * `eventually`'s 15 s, so these waits get a minute: still conditions, never a time. */
const eventuallyDemo = <T>(read: () => Promise<T> | T) =>
  expect.poll(read, { timeout: 60_000, interval: 250 })

// One page for the file's two tests: each loads its own console's document in it.
const openPage = useSharedPage(useChromium())

describe('Chains view of the demo in Chromium', () => {
  const serve = useServeProcess()

  it('shows twelve rows with advancing heads on one 1280×800 screen, and stops exactly its nodes', async () => {
    const running = await serve(['--demo'])
    const pids = (/demo: 12 local anvil nodes \(pids ([\d, ]+)\)/.exec(running.output())?.[1] ?? '')
      .split(', ')
      .map(Number)
    expect(pids).toHaveLength(12)
    expect(pids.every(alive)).toBe(true)

    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${running.consoleUrl}/?token=${encodeURIComponent(running.token)}#/chains`)
    const rows = page.locator('table.chains-table tbody tr')
    await eventuallyDemo(() => rows.count()).toBe(12)
    await eventuallyDemo(() => page.locator('tr[data-status="healthy"]').count()).toBe(12)

    const headOf = async (serviceId: number) =>
      Number(
        ((await page.locator(`tr[data-service-id="${serviceId}"] td.col-head`).textContent()) ?? '').replace(
          /,/g,
          '',
        ),
      )
    const first = await headOf(56)
    await eventuallyDemo(() => headOf(56)).toBeGreaterThan(first)
    await eventuallyDemo(() => headOf(42161)).toBeGreaterThan(0)
    // The ids anvil answers match the registry: no wrong network, the clients are named.
    await eventually(() => page.locator('td.col-client').first().textContent()).toMatch(/^anvil\//)

    // One screen, no scrolling, rows of one height.
    const fits = await page.evaluate(() => {
      const main = document.querySelector('main.content')!
      const heights = [...document.querySelectorAll('table.chains-table tbody tr')].map(
        (r) => r.getBoundingClientRect().height,
      )
      return { scroll: main.scrollHeight <= main.clientHeight, heights: [...new Set(heights)] }
    })
    expect(fits.scroll).toBe(true)
    expect(fits.heights).toHaveLength(1)
    await saveScreenshot(page, 'chains-demo-1280x800')

    // The drawer: identity check, prices, and the RPC console answering from the node.
    await page.locator('tr[data-service-id="61"]').click()
    const drawer = page.getByRole('complementary', { name: 'Ethereum Classic details' })
    await eventually(() => drawer.textContent()).toContain('matches the registry')
    await eventually(() => drawer.textContent()).toContain('Fullnode $213')
    // Seconds after the first start, uptime says the period its data covers, not "24 h 100.00 %".
    await eventually(() => drawer.locator('.uptime').textContent()).toMatch(
      /^Uptime\d+\.\d\d % over the last \d+ (s|min) of data$/,
    )
    // The 15-minute quality window is not full either: its figures name the span they cover. (A
    // slow answer counts as an error, and on a loaded machine a local node's answer can be slow:
    // the count is not what this checks.)
    await eventually(() => drawer.textContent()).toMatch(/Latency p50 \/ p95 \(last \d+ (s|min)\)/)
    await eventually(() => drawer.textContent()).toMatch(
      /Errors \(last \d+ (s|min)\)\d+ of \d+ polls \(\d+\.\d %\)/,
    )
    await drawer.getByRole('button', { name: 'Send' }).click()
    await eventually(() => drawer.locator('.rpc-raw').textContent()).toMatch(/"result": "0x[0-9a-f]+"/)
    await saveScreenshot(page, 'chains-demo-drawer-1280x800')
    await drawer.getByRole('heading', { name: 'Beyond the head' }).scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'chains-demo-drawer-health-1280x800')

    // The demo's signed sample events were accepted and stored by the listener.
    const stored = await fetch(`${running.consoleUrl}/api/call/events.count`, {
      method: 'POST',
      headers: { authorization: `Bearer ${running.token}`, 'content-type': 'application/json' },
      body: '{}',
    }).then((r) => r.json())
    expect(stored.value.total).toBeGreaterThanOrEqual(8)

    // The Overview strip shows all twelve.
    await page.goto(`${running.consoleUrl}/#/overview`)
    await eventuallyDemo(() => page.locator('.chain-strip-cell[data-status="healthy"]').count()).toBe(12)
    await saveScreenshot(page, 'overview-chain-strip-1280x800')

    running.process.kill('SIGTERM')
    await new Promise((resolve) => running.process.once('exit', resolve))
    await eventually(() => pids.filter(alive)).toEqual([])
  }, 180_000)
})

describe('Chains view with trouble, in Chromium', () => {
  const anvil = useAnvil()
  const standin = useRpcStandin()
  const tempDir = useTempDir()
  const startConsole = useTestConsole()

  it('puts wrong network and down first, says why, and explains an eth_estimateGas refusal', async () => {
    const healthy = await anvil({ chainId: 56, blockTimeSeconds: 1 })
    const otherNetwork = await anvil({ chainId: 1, blockTimeSeconds: 1 })
    const refusing = await standin(
      jsonRpcNode({
        eth_blockNumber: hex(900),
        eth_getBlockByNumber: () => ({ number: hex(900), timestamp: hex(Math.floor(Date.now() / 1000)) }),
        web3_clientVersion: 'astar-collator/v5.40.0',
        net_version: '592',
        eth_chainId: hex(592),
        eth_estimateGas: { error: { code: -32000, message: 'gas required exceeds allowance (30000000)' } },
      }),
    )
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()))
    const deadPort = (closed.address() as AddressInfo).port
    await new Promise<void>((r) => closed.close(() => r()))

    const dir = tempDir()
    const configFile = join(dir, 'overlay.json')
    writeFileSync(
      configFile,
      JSON.stringify({
        pollIntervalMs: 1000,
        chains: {
          '56': { url: healthy.url },
          // confirmFailures 1: this view test is about order and words, not the debounce.
          '61': { url: otherNetwork.url, confirmFailures: 1 },
          '592': { url: refusing.url },
          '250': { url: `http://127.0.0.1:${deadPort}`, timeoutMs: 500, confirmFailures: 1 },
        },
      }),
    )
    const c = await startConsole({ dataDir: dir, configFile, secrets: createMemoryStore() })
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${c.launchUrl}#/chains`)
    const statuses = () =>
      page
        .locator('table.chains-table tbody tr')
        .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status')))
    await eventually(statuses).toEqual([
      'wrong_network',
      'down',
      ...Array(2).fill('healthy'),
      ...Array(8).fill('not_configured'),
    ])
    await eventually(() => page.locator('tr[data-service-id="61"] .col-detail').textContent()).toContain(
      'eth_chainId answers 1, not 61',
    )
    await eventually(() => page.locator('tr[data-service-id="250"] .col-detail').textContent()).toContain(
      'Connection refused',
    )
    await saveScreenshot(page, 'chains-trouble-1280x800')

    await page.locator('tr[data-service-id="592"]').click()
    const drawer = page.getByRole('complementary', { name: 'Astar details' })
    await drawer.getByLabel('Method').selectOption('eth_estimateGas')
    await drawer.getByLabel('from').fill('0x1111111111111111111111111111111111111111')
    await drawer.getByLabel('to').fill('0x2222222222222222222222222222222222222222')
    await drawer.getByLabel('value').fill('0x1')
    await drawer.getByRole('button', { name: 'Send' }).click()
    await eventually(() => drawer.locator('.rpc-exchange').textContent()).toContain(
      'The transaction needs more gas than the node allows (allowance 30000000)',
    )
    await eventually(() => drawer.locator('.rpc-raw').textContent()).toContain('"code": -32000')
    await saveScreenshot(page, 'chains-estimate-gas-explained-1280x800')
  })
})
