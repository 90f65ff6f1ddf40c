import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/main/log'
import { createRelayToken, openSqliteRelayStore, startRelay } from '../../src/main/relay'
import type { RelayStore, RunningRelay } from '../../src/main/relay'
import { createMemoryStore, observeSecrets } from '../../src/main/secrets'
import { unwrap } from '../../src/shared/result'
import { deliver, relaySecret } from '../main/relay/helpers'
import { eventually, saveScreenshot, showView, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { hex, jsonRpcNode, useRpcStandin } from '../support/rpc-standin'
import { useTempDir } from '../support/temp'

/** The Overview's headline reads from every part (issue 31): a console whose listener holds no
 * webhook secret is never "all well"; events synced from a relay count in events/min, labelled;
 * a lagging chain's lag reads in blocks and seconds. Real console, a real relay (SQLite), a
 * scripted node, Chromium. */

const rendererDir = join(import.meta.dirname, '..', '..', 'out', 'renderer')

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

describe('the Overview headline, in Chromium', () => {
  const standin = useRpcStandin()
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // One page for both window sizes: a new page costs Chromium about 2.3 s of CPU, a fresh document
  // of the console in the open one about 1 s.
  const openPage = useSharedPage(useChromium())
  const opened: { relay: RunningRelay; store: RelayStore }[] = []
  afterEach(async () => {
    for (const o of opened.splice(0)) {
      await o.relay.stop()
      await o.store.close()
    }
  })

  it('is not "all well" while the listener has no secret, counts synced events per minute, and shows lag in blocks and seconds', async () => {
    const store = unwrap(openSqliteRelayStore(join(tempDir(), 'relay.db')))
    const relay = unwrap(
      await startRelay({
        store,
        secrets: observeSecrets(createMemoryStore({ 'webhook-secret:wh_relay': relaySecret })),
        log: silentLogger,
        listener: { host: '127.0.0.1', port: 0 },
        sync: { host: '127.0.0.1', port: 0 },
      }),
    )
    opened.push({ relay, store })
    const token = unwrap(await createRelayToken(store, 'headline'))
    const lagging = await standin(nodeBehind(137, 30))
    const dir = tempDir()
    const configFile = join(dir, 'overlay.json')
    writeFileSync(
      configFile,
      JSON.stringify({
        pollIntervalMs: 1000,
        chains: { '137': { url: lagging.url, laggingAfterSeconds: 10, stalledAfterSeconds: 600 } },
        sources: { office: { url: relay.syncUrl } },
      }),
    )
    // No webhook secret for the console's own listener: every delivery to it would be rejected.
    const secrets = createMemoryStore({ 'source-token:office': token })
    const c = await startConsole({ dataDir: dir, configFile, secrets, rendererDir })
    for (const id of ['evt_synced_1', 'evt_synced_2', 'evt_synced_3'])
      expect(await deliver(`${relay.listenerUrl}/webhooks`, id)).toBe(200)

    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 1024, height: 768 },
    ]) {
      const page = await openPage(viewport)
      // The console's document is loaded at the first size; at the second the Overview mounts afresh
      // by the hash (the page is on the drawer's route by then), a load of the app (~0.7 CPU-s of
      // Chromium) fewer: the headline and the lag come from the back end's live state either way.
      await showView(page, c, '#/overview')
      const where = `${viewport.width}x${viewport.height}`
      const line = page.getByTestId('glance-line')
      await eventually(() => line.textContent()).toMatch(/listener has no webhook secret/)
      await eventually(() => line.textContent()).toMatch(/ · 3 events\/min \(all relayed\)$/)
      const badge = page.locator('.view-head .status').first()
      expect(await badge.textContent()).not.toBe('all well')
      expect(await badge.textContent()).toBe('needs a look')

      const polygon = page.locator('.chain-strip-cell', { hasText: 'Polygon' })
      await eventually(() => polygon.locator('.chain-lag').textContent()).toMatch(/^~?\d+ blk · \d+ s$/)
      expect(
        await page.evaluate(() => {
          const main = document.querySelector('main.content')!
          return main.scrollWidth <= main.clientWidth
        }),
        `the Overview scrolls sideways at ${where}`,
      ).toBe(true)
      await saveScreenshot(page, `overview-headline-${where}`)

      // The drawer: lag and block age each with both units.
      await polygon.locator('a').click()
      const drawer = page.getByRole('complementary', { name: 'Polygon details' })
      await eventually(() => drawer.textContent()).toMatch(/Block age\d+ s · \d+ blk/)
      await eventually(() => drawer.textContent()).toMatch(/Lag~?\d+ blk · \d+ s/)
      await saveScreenshot(page, `chain-drawer-units-${where}`)
    }
  })
})
