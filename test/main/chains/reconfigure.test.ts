import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { configCommand } from '../../../src/main/cli/main'
import type { CliIo } from '../../../src/main/cli/io'
import { createMemoryStore } from '../../../src/main/secrets'
import { callApi, useTestConsole } from '../../support/console'
import type { RunningConsole } from '../../../src/main/serve'
import { hex, jsonRpcNode, useRpcStandin } from '../../support/rpc-standin'
import type { StandinReply } from '../../support/rpc-standin'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'

/** Issue 29 item 4: a config edit reconfigures the chains poller; it is never taken for a
 * recovery. Serve mode in this process (real HTTP API, SQLite on disk, config.json through its one
 * writer and its watcher), a scripted node that fails, and a real webhook alert channel. */

const healthyPolygon = () =>
  jsonRpcNode({
    eth_blockNumber: hex(5000),
    eth_getBlockByNumber: () => ({ number: hex(5000), timestamp: hex(Math.floor(Date.now() / 1000)) }),
    eth_syncing: false,
    web3_clientVersion: 'bor/v2.0.1',
    net_version: '137',
    eth_chainId: hex(137),
  })

const quietIo = (dataDir: string): CliIo => ({
  out: () => {},
  err: () => {},
  env: { WATCHDESK_DATA_DIR: dataDir },
})

describe('config edits during an open chain incident', () => {
  const tempDir = useTempDir()
  const startConsole = useTestConsole()
  const standin = useRpcStandin()
  const recorder = useRecorder()

  /** A console whose Polygon node answers 503: down confirmed at the first failed poll. */
  async function downPolygon() {
    const dataDir = tempDir()
    const node = await standin(() => ({ status: 503, body: 'upstream unavailable' }))
    const hook = await recorder()
    writeFileSync(
      join(dataDir, 'config.json'),
      JSON.stringify({
        chains: { '137': { url: node.url, pollIntervalMs: 300, confirmFailures: 1 } },
        alerts: { channels: { ops: { type: 'webhook' }, desktop: null } },
      }),
    )
    const secrets = createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts whsec_alerts_0123` })
    const c = await startConsole({ dataDir, secrets })
    const alerts = () => hook.received.map((r) => `${r.json.rule} ${r.json.kind}`)
    await waitFor(() => alerts().length > 0, 'the down alert', { timeoutMs: 30_000 })
    expect(alerts()).toEqual(['chain.down fired'])
    const incident = await openIncident(c)
    return { dataDir, node, hook, c, alerts, incident }
  }

  async function openIncident(c: RunningConsole) {
    const { json } = await callApi(c, 'alerts.incidents', { open: true, limit: 10 })
    expect(json.value.incidents.map((i: any) => [i.rule, i.subject])).toEqual([['chain.down', 'chain:137']])
    return json.value.incidents[0]
  }

  /** Polls made after this point: the poller carried on (with whatever config it now has). */
  const morePolls = async (node: { received: unknown[] }, n: number) => {
    const from = node.received.length
    await waitFor(() => node.received.length >= from + n, `${n} more polls`, { timeoutMs: 60_000 })
  }

  it(
    'three config edits (Settings, a forward target, `config set`) send no alert and keep the incident open from its start',
    { timeout: 90_000 },
    async () => {
      const { dataDir, node, c, alerts, incident } = await downPolygon()

      // 1. Settings → Save of an alert key.
      const saved = await callApi(c, 'settings.update', { set: { 'alerts.repeatMinutes': 45 } })
      expect(saved.json.value.saved).toBe(true)
      // 2. A new forward target.
      const added = await callApi(c, 'forward.targets.set', {
        name: 'app',
        target: { url: 'http://127.0.0.1:9/hooks' },
      })
      expect(added.json.ok).toBe(true)
      // 3. `watchdesk config set` from another process's writer; the console's watcher applies it.
      expect(await configCommand(['set', 'alerts.minFailures', '4'], quietIo(dataDir))).toBe(0)
      await waitFor(async () => {
        const { json } = await callApi(c, 'settings.get')
        return JSON.stringify(json.value).includes('"minFailures":4')
      }, 'the console to apply the edit')
      // Polls go on after the edits (backing off, as they did before them).
      await morePolls(node, 2)

      expect(alerts()).toEqual(['chain.down fired'])
      const still = await openIncident(c)
      expect(still.id).toBe(incident.id)
      expect(still.openedAt).toBe(incident.openedAt)
      const { json } = await callApi(c, 'chains.list')
      expect(json.value.chains.find((x: any) => x.serviceId === 137).status).toBe('down')
    },
  )

  it(
    'a chain re-pointed to a good node recovers only once that node has answered a poll',
    { timeout: 90_000 },
    async () => {
      const { node, c, alerts, incident } = await downPolygon()
      // The good node holds its first answer until the test lets it go.
      let release: () => void = () => {}
      const held = new Promise<void>((r) => (release = r))
      const answer = healthyPolygon()
      const good = await standin(async (body, path): Promise<StandinReply> => {
        await held
        return answer(body, path)
      })

      const saved = await callApi(c, 'settings.update', { set: { 'chains.137.url': good.url } })
      expect(saved.json.value.saved).toBe(true)
      await waitFor(() => good.received.length > 0, 'a poll of the new node')
      // Asked, not answered: the chain is still down, nothing was announced.
      const { json } = await callApi(c, 'chains.list')
      const polygon = json.value.chains.find((x: any) => x.serviceId === 137)
      expect(polygon.status).toBe('down')
      expect(polygon.reason).toContain(`now polling ${good.url}: waiting for its first answer`)
      expect((await openIncident(c)).openedAt).toBe(incident.openedAt)
      expect(alerts()).toEqual(['chain.down fired'])
      const oldPolls = node.received.length

      release()
      await waitFor(() => alerts().length > 1, 'the recovery alert', { timeoutMs: 30_000 })
      expect(alerts()).toEqual(['chain.down fired', 'chain.down recovered'])
      const closed = (await callApi(c, 'alerts.incidents', { limit: 10 })).json.value.incidents[0]
      expect(closed).toMatchObject({ id: incident.id, openedAt: incident.openedAt })
      expect(closed.closedAt).not.toBeNull()
      // The old node is no longer polled.
      expect(node.received.length).toBeLessThanOrEqual(oldPolls + 1)
    },
  )
})
