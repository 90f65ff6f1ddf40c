import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/main/secrets'
import { deliver, relaySecret } from '../main/relay/helpers'
import { eventually, saveScreenshot, showView, useChromium, useSharedPage } from '../support/browser'
import { callApi, useTestConsole } from '../support/console'
import { clippedCells, inFirstScreen } from '../support/layout'
import { hex, jsonRpcNode, useRpcStandin } from '../support/rpc-standin'
import { useTempDir } from '../support/temp'

/** The Overview as the glance page (issue 18): with a chain lagging, a forward target down, a relay
 * source unreachable and open incidents, each shows on the first screen at 1280×800 and 1024×768,
 * and the sidebar's Alerts item carries the open-incident count apart from its shortcut key.
 * At 1024 px no chain name and no incident cell is cut (issue 19). Real parts throughout: the
 * console (SQLite, listener, forwarder, source follower, alert rules), scripted nodes, Chromium. */

const rendererDir = join(import.meta.dirname, '..', '..', 'out', 'renderer')

/** A loopback port nothing listens on: connections are refused at once. */
async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

/** A node whose head advances every 2 s but whose newest block is `behindSeconds` old: lagging. */
function nodeBehind(chainId: number, behindSeconds: number) {
  const head = () => Math.floor(Date.now() / 2000)
  return jsonRpcNode({
    eth_blockNumber: () => hex(head()),
    eth_getBlockByNumber: () => ({
      number: hex(head()),
      timestamp: hex(Math.floor(Date.now() / 1000) - behindSeconds),
    }),
    web3_clientVersion: 'bor/v1.5.5',
    net_version: String(chainId),
    eth_chainId: hex(chainId),
  })
}

describe('Overview, the glance page, in Chromium', () => {
  const standin = useRpcStandin()
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // One page, resized: each size loads the console's document afresh in it.
  const openPage = useSharedPage(useChromium())

  it('shows a lagging chain, a failing forward target, an unreachable relay source and open incidents on the first screen', async () => {
    const healthy = await standin(nodeBehind(56, 0))
    const lagging = await standin(nodeBehind(137, 30))
    const [nodePort, targetPort, relayPort] = [await deadPort(), await deadPort(), await deadPort()]
    const dir = tempDir()
    const configFile = join(dir, 'overlay.json')
    writeFileSync(
      configFile,
      JSON.stringify({
        pollIntervalMs: 1000,
        chains: {
          '56': { url: healthy.url },
          '137': { url: lagging.url, laggingAfterSeconds: 10, stalledAfterSeconds: 600 },
          '250': { url: `http://127.0.0.1:${nodePort}`, timeoutMs: 500, confirmFailures: 1 },
        },
        forward: { targets: { audit: { url: `http://127.0.0.1:${targetPort}/hook` } } },
        sources: { office: { url: `http://127.0.0.1:${relayPort}` } },
      }),
    )
    const secrets = createMemoryStore({
      'webhook-secret:wh_glance': relaySecret,
      'source-token:office': 'wdr_office_token_0123456789',
    })
    const c = await startConsole({ dataDir: dir, configFile, secrets, rendererDir })
    const hooks = `${c.backend.services.webhooks.address().url!}/webhooks`
    for (const id of ['evt_glance_1', 'evt_glance_2']) expect(await deliver(hooks, id)).toBe(200)
    // Until the back end has each fault to show (the forwarder has tried, the rules have fired).
    await eventually(
      async () => (await callApi(c, 'alerts.incidents', { open: true })).json.value.incidents.length,
    ).toBeGreaterThan(0)
    await eventually(async () => (await callApi(c, 'forward.status')).json.value.targets[0].health).toBe(
      'failing',
    )

    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 1024, height: 768 },
    ]) {
      const page = await openPage(viewport)
      // The console's document is loaded once, at the first size; the second resizes it in place
      // (the layout is CSS alone: no script measures the window), a load of the app fewer.
      await showView(page, c, '#/overview')
      const where = `${viewport.width}x${viewport.height}`
      const chain137 = page.locator('.chain-strip-cell[data-status="lagging"]', { hasText: 'Polygon' })
      await eventually(() => chain137.count()).toBe(1)
      // Head lag in blocks and seconds, coloured by the chain's thresholds.
      await eventually(() => chain137.locator('.chain-lag').textContent()).toMatch(/blk · \d+ s/)
      expect(await chain137.locator('.chain-lag').getAttribute('class')).toContain('status-warn')

      const forward = page.getByRole('region', { name: 'Forwarding' })
      await eventually(() => forward.locator('.tile-head .status').textContent()).toBe('1 of 1 failing')
      expect(await forward.textContent()).toContain('audit')

      const sources = page.getByRole('region', { name: 'Relay sources' })
      await eventually(() => sources.getByLabel('source office: unreachable').count()).toBe(1)
      await eventually(() => sources.textContent()).toMatch(/never reached|since \d/)

      const incidents = page.getByRole('region', { name: 'Incidents' })
      await eventually(() => incidents.locator('.tile-head .status').textContent()).toMatch(/^\d+ open$/)
      const firstIncident = incidents.locator('.tile-list a').first()
      expect(await firstIncident.getAttribute('href')).toMatch(/^#\/alerts\/incident\/\d+$/)

      const listener = page.getByRole('region', { name: 'Webhook listener' })
      await eventually(() => listener.textContent()).toMatch(/2 in the last minute/)

      // The same one-line summary as the tray.
      await eventually(() => page.getByTestId('glance-line').textContent()).toMatch(
        /^\d+ incidents? · 3 chains, 1 down, 1 lagging · 1 forward target failing · 1 relay source not syncing · 2 events\/min$/,
      )

      // Each fault on the first screen, nothing to scroll to.
      for (const [name, locator] of Object.entries({
        chain137,
        forward,
        sources,
        incidents,
        firstIncident,
        listener,
        publicUrl: page.getByRole('region', { name: 'Public URL' }),
      }))
        expect(await inFirstScreen(locator), `${name} visible without scrolling at ${where}`).toBe(true)
      expect(
        await inFirstScreen(page.getByRole('region', { name: 'Chains' })),
        `all chains at ${where}`,
      ).toBe(true)
      expect(
        await page.evaluate(() => {
          const main = document.querySelector('main.content')!
          return main.scrollWidth <= main.clientWidth
        }),
        `the Overview scrolls sideways at ${where}`,
      ).toBe(true)

      // The Alerts item says "N open" in a pill; the shortcut digit stays a key cap of its own.
      const alertsItem = page.locator('nav.sidebar a[href="#/alerts"]')
      const open = (await callApi(c, 'alerts.incidents', { open: true })).json.value.incidents.length
      await eventually(() => alertsItem.locator('.nav-count').textContent()).toBe(`${open} open`)
      expect(await alertsItem.locator('kbd').textContent()).toBe('5')

      // Every tile's title links to its view.
      expect(
        await page
          .locator('.tile-head h2 a')
          .evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
      ).toEqual([
        '#/alerts',
        '#/events',
        '#/settings',
        '#/settings',
        '#/settings',
        // Payload shapes (the drift watch) opens the Events view.
        '#/events',
        '#/settings',
      ])
      expect(await clippedCells(page, '.chain-strip-name'), `chain names cut at ${where}`).toEqual([])
      await saveScreenshot(page, `overview-glance-${where}`)

      if (viewport.width === 1024) {
        // The chain drawer's incidents at 1024 px: no cell cut, nothing wider than the drawer.
        // A chain's cell opens it in the Chains view.
        await page.locator('.chain-strip-cell', { hasText: 'Fantom' }).locator('a').click()
        const drawer = page.getByRole('complementary', { name: 'Fantom details' })
        const table = drawer.locator('table[aria-label="Fantom incidents"]')
        await eventually(() => table.locator('tbody tr').count()).toBeGreaterThan(0)
        await table.scrollIntoViewIfNeeded()
        await saveScreenshot(page, 'chain-drawer-incidents-1024x768')
        expect(await clippedCells(table, 'td, th'), 'incident cells cut in the drawer').toEqual([])
        expect(
          await drawer.evaluate((el) => el.scrollWidth <= el.clientWidth),
          'the chain drawer scrolls sideways at 1024 px',
        ).toBe(true)
      }
    }
  })
})
