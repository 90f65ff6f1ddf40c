import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { useAnvil } from '../support/anvil'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { hex, jsonRpcNode, useRpcStandin } from '../support/rpc-standin'
import { useTempDir } from '../support/temp'

/** Issue 22 as an operator sees it: Polygon with four sources (its node, a second anvil node, a
 * reference answering another chain's height, one on another chain id), Optimism whose sources
 * disagree, BSC with none. The Chains view, the drawer's sources table and Settings' references
 * in Chromium; `bin/watchdesk chains --sources --json` from the built bundle. */

const bin = join(import.meta.dirname, '../../bin/watchdesk')

describe('chain sources in Chromium and the CLI', () => {
  const anvil = useAnvil()
  const standin = useRpcStandin()
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())

  it('shows each chain’s sources and why one is excluded, in the view, the drawer, Settings and chains --sources --json', async () => {
    const polygon = await anvil({ chainId: 137, blockTimeSeconds: 1 })
    const twin = await anvil({ chainId: 137, blockTimeSeconds: 1 })
    const bsc = await anvil({ chainId: 56, blockTimeSeconds: 1 })
    const optimism = await anvil({ chainId: 10, blockTimeSeconds: 1 })
    const far = await standin(jsonRpcNode({ eth_blockNumber: hex(30_000_000), eth_chainId: hex(137) }))
    const high = await standin(jsonRpcNode({ eth_blockNumber: hex(500_000), eth_chainId: hex(10) }))
    const higher = await standin(jsonRpcNode({ eth_blockNumber: hex(900_000), eth_chainId: hex(10) }))

    const dir = tempDir()
    const configFile = join(dir, 'overlay.json')
    writeFileSync(
      configFile,
      JSON.stringify({
        pollIntervalMs: 1000,
        chains: {
          '137': {
            url: polygon.url,
            references: [
              { name: 'twin', url: twin.url },
              { name: 'far', url: far.url },
              { name: 'bsc-by-mistake', url: bsc.url },
            ],
          },
          '10': {
            url: optimism.url,
            references: [
              { name: 'high', url: high.url },
              { name: 'higher', url: higher.url },
            ],
          },
          '56': { url: bsc.url },
        },
      }),
    )
    const c = await startConsole({ dataDir: dir, configFile, secrets: createMemoryStore() })
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${c.launchUrl}#/chains`)

    // The view: counted of all sources, and the excluded references named with their reason.
    const row = (id: number) => page.locator(`tr[data-service-id="${id}"]`)
    await eventually(() => row(137).locator('.col-sources').textContent()).toBe('2/4')
    await eventually(() => row(137).getAttribute('data-status')).toBe('healthy')
    expect(await row(137).locator('.col-detail').textContent()).toBe(
      'far excluded: ahead of all others; bsc-by-mistake excluded: wrong chain id',
    )
    await eventually(() => row(10).locator('.col-detail').textContent()).toMatch(
      /^Sources disagree: heads 900000, 500000, \d+, no two within 30 blocks/,
    )
    expect(await row(56).locator('.col-sources').textContent()).toBe('1/1')
    await saveScreenshot(page, 'chains-sources-1280x800')

    // The drawer: one row per source, the excluded ones with the reason in words and the numbers.
    await row(137).click()
    const drawer = page.getByRole('complementary', { name: 'Polygon details' })
    const sources = drawer.getByRole('table', { name: 'Polygon sources' })
    // Each source's state, and on the line below it why, in words and numbers, since when.
    const stateOf = (name: string) =>
      sources.locator(`tr[data-source="${name}"] td:nth-child(2)`).textContent()
    const whyOf = (name: string) =>
      sources.locator(`tr[data-source="${name}"] + tr.source-detail`).textContent()
    await eventually(() => stateOf('far')).toBe('excluded')
    expect(await stateOf('service node')).toBe('counted')
    expect(await stateOf('twin')).toBe('counted')
    expect(await stateOf('bsc-by-mistake')).toBe('excluded')
    expect(await whyOf('far')).toMatch(/^ahead of all others: Its head 30000000 is/)
    expect(await whyOf('bsc-by-mistake')).toMatch(
      /^wrong chain id: eth_chainId answers 56, not 137: another network\. Since \d\d:\d\d:\d\d\.$/,
    )
    const text = (await sources.textContent()) ?? ''
    expect(text).toMatch(/Its head 30000000 is \d+ blocks ahead of every other source \(more than 30\)/)
    expect(text).toContain('eth_chainId answers 56, not 137: another network.')
    expect(await drawer.locator('.sources-rule').textContent()).toMatch(/^head corroborated/)
    await saveScreenshot(page, 'chains-sources-drawer-1280x800')
    await page.keyboard.press('Escape')

    // At 1024 px the view still fits without sideways scrolling.
    await page.setViewportSize({ width: 1024, height: 768 })
    await saveScreenshot(page, 'chains-sources-1024x768')
    const sideways = await page.evaluate(() => {
      const main = document.querySelector('main.content')!
      return main.scrollWidth - main.clientWidth
    })
    expect(sideways).toBe(0)

    // Settings: the saved references (masked), a Test each, the public endpoints offered.
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.evaluate(() => (location.hash = '#/settings'))
    const panel = page.getByRole('region', { name: 'Chains settings' })
    await panel.locator('summary', { hasText: 'Polygon' }).click()
    const refs = panel.getByLabel('Polygon references')
    await eventually(() => refs.locator('li[data-reference]').count()).toBe(3)
    await refs.locator('li[data-reference="twin"]').getByRole('button', { name: 'Test' }).click()
    await eventually(() => refs.locator('li[data-reference="twin"] .reference-test').textContent()).toMatch(
      /answers\s*chain id 137 \(expected 137\) · head [\d,]+ · \d+ ms/,
    )
    await refs.locator('li[data-reference="bsc-by-mistake"]').getByRole('button', { name: 'Test' }).click()
    await eventually(() =>
      refs.locator('li[data-reference="bsc-by-mistake"] .reference-test').textContent(),
    ).toContain('wrong chain id')
    expect(await refs.locator('.public-rpcs').textContent()).toContain('https://polygon-rpc.com')
    // A reference added from BNB Smart Chain's form is tested first, then saved and listed.
    await panel.locator('summary', { hasText: 'BNB Smart Chain' }).click()
    const bscRefs = panel.getByLabel('BNB Smart Chain references')
    const form = bscRefs.getByRole('form', { name: 'Add a reference to chain 56' })
    await form.getByPlaceholder('name').fill('second')
    await form.getByPlaceholder(/^https/).fill(bsc.url)
    await form.getByRole('button', { name: 'Test' }).click()
    await eventually(() => form.locator('.reference-test').textContent()).toMatch(/^answers\s*chain id 56/)
    await form.getByRole('button', { name: 'Add' }).click()
    await eventually(() => bscRefs.locator('li[data-reference]').count()).toBe(1)
    const saved = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as {
      chains: Record<string, { references: { name: string; url: string }[] }>
    }
    expect(saved.chains['56']!.references).toEqual([{ name: 'second', url: bsc.url }])
    await refs.scrollIntoViewIfNeeded()
    await saveScreenshot(page, 'settings-chain-references-1280x800')

    // The built CLI lists them too.
    const { stdout } = await promisify(execFile)(
      bin,
      ['chains', '--sources', '--json', '--data-dir', dir, '--config', configFile],
      { env: { ...process.env, WATCHDESK_LOG_LEVEL: 'warn' } },
    )
    const rows = stdout
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            serviceId: number
            sources: { name: string; state: string; reason: string | null }[]
          },
      )
    const polygonRow = rows.find((r) => r.serviceId === 137)!
    expect(polygonRow.sources.map((s) => [s.name, s.state, s.reason])).toEqual([
      ['service node', 'counted', null],
      ['twin', 'counted', null],
      ['far', 'excluded', 'ahead'],
      ['bsc-by-mistake', 'excluded', 'wrong_chain'],
    ])
    expect(rows.map((r) => r.serviceId).sort((a, b) => a - b)).toEqual([10, 56, 137])
  })
})
