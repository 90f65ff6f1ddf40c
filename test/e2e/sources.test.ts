import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/main/log'
import { createRelayToken, openSqliteRelayStore, startRelay } from '../../src/main/relay'
import type { RelayStore, RunningRelay } from '../../src/main/relay'
import { createMemoryStore, observeSecrets } from '../../src/main/secrets'
import { unwrap } from '../../src/shared/result'
import { deliver, relaySecret } from '../main/relay/helpers'
import { eventually, saveScreenshot, useChromium, useSharedPage } from '../support/browser'
import { useTestConsole } from '../support/console'
import { useTempDir } from '../support/temp'

const root = join(import.meta.dirname, '..', '..')

describe('sources in Chromium', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  // The worker's one page (see useSharedPage): this file loads its console's document in it.
  const openPage = useSharedPage(useChromium())
  const opened: { relay: RunningRelay; store: RelayStore }[] = []
  afterEach(async () => {
    for (const o of opened.splice(0)) {
      await o.relay.stop()
      await o.store.close()
    }
  })

  it('adds a relay in Settings, shows it live, and lists its events in the Events view with the source', async () => {
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
    for (const id of ['evt_from_relay_1', 'evt_from_relay_2'])
      expect(await deliver(`${relay.listenerUrl}/webhooks`, id)).toBe(200)
    const token = unwrap(await createRelayToken(store, 'browser'))
    const secrets = createMemoryStore()
    const c = await startConsole({ dataDir: tempDir(), secrets, rendererDir: join(root, 'out', 'renderer') })
    const page = await openPage({ width: 1280, height: 800 })
    await page.goto(`${c.launchUrl}#/settings`)
    const panel = page.getByRole('region', { name: 'Sources' })
    await panel.getByLabel('Source name').fill('office')
    await panel.getByLabel('Relay URL').fill(relay.syncUrl)
    await panel.getByLabel('Relay token').fill('wdr_wrong_token_123456')
    await panel.getByRole('button', { name: 'Test' }).click()
    await eventually(() => panel.locator('.banner').textContent()).toMatch(/refused the token/)
    await panel.getByLabel('Relay token').fill(token)
    await panel.getByRole('button', { name: 'Add' }).click()
    await eventually(() => panel.locator('tbody tr').textContent()).toMatch(/office.*live.*2/)
    expect(unwrap(await secrets.get('source-token:office'))).toBe(token)
    expect(await page.content()).not.toContain(token)
    await saveScreenshot(page, 'sources-settings-1280x800')

    // Same document (the token was taken out of the address bar): only the hash changes.
    await page.goto(`${c.url}/#/events`)
    await eventually(() => page.getByText('evt_from_relay_2').count()).toBe(1)
    // The source column names the relay; a local event says "local".
    expect(
      await page
        .locator('[role="row"]', { hasText: 'evt_from_relay_2' })
        .locator('.col-source')
        .textContent(),
    ).toBe('office')
    expect(await deliver(`${relay.listenerUrl}/webhooks`, 'evt_from_relay_live')).toBe(200)
    await eventually(() => page.getByText('evt_from_relay_live').count()).toBe(1)
  })
})
