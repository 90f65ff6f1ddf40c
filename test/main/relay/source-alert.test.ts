import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import { unwrap } from '../../../src/shared/result'
import { manualClock } from '../../support/clock'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'
import { useFollowingConsoles, useRelays } from './helpers'

/** The alert rule "relay source unreachable", fed from the sources' status (composed in
 * services.ts), to a webhook channel recorded by a local HTTP server. The rules' clock is moved by
 * hand; the relay really stops and starts again on its port. */
describe('the relay source alert', () => {
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-source-alert-')
  const recorder = useRecorder()
  const consoles = useFollowingConsoles()

  it('sends one alert when a relay stays unreachable past the confirmation, and one recovery when it answers again', async () => {
    const channel = await recorder()
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    let relay = await relays.relay(store)
    const syncPort = Number(new URL(relay.syncUrl).port)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    const dataDir = tempDir()
    const clock = manualClock()
    const backend = await consoles({
      dataDir,
      config: {
        sources: { office: { url: relay.syncUrl } },
        alerts: { channels: { hook: { type: 'webhook' } } },
      },
      secrets: { 'source-token:office': token, 'alert-channel:hook': channel.url },
      clock,
    })
    const { sources, alerts } = backend.services
    const stateIs = (state: string) => () => sources.list()[0]?.state === state || undefined
    const tick = async (times: number) => {
      for (let i = 0; i < times; i++) clock.advance(5_000)
      await alerts.idle()
    }
    const sourceAlerts = () => channel.received.filter((r) => r.json?.rule === 'relay.source')

    await waitFor(stateIs('live'), 'the source live')
    await tick(4)
    expect(channel.received).toEqual([])

    await relay.stop()
    await waitFor(stateIs('unreachable'), 'the source unreachable')
    // Two observations over 5 s, then three over 10 s: still confirming (a restart is no outage).
    await tick(2)
    expect(sourceAlerts()).toEqual([])
    await tick(1)
    expect(sourceAlerts()).toEqual([])
    // Four observations over 15 s: confirmed, one alert; later checks add none.
    await tick(1)
    expect(sourceAlerts()).toHaveLength(1)
    await tick(6)
    expect(sourceAlerts().map((r) => r.json)).toEqual([
      expect.objectContaining({
        source: 'watchdesk',
        rule: 'relay.source',
        subject: 'source:office',
        kind: 'fired',
        severity: 'critical',
        title: 'Relay source office unreachable',
      }),
    ])
    expect(sourceAlerts()[0]!.json.body).toContain(`127.0.0.1:${syncPort}`)

    relay = await relays.relay(store, { port: syncPort })
    await waitFor(stateIs('live'), 'the source live again', { timeoutMs: 10_000 })
    // Its first check once live recovers it: unreachable from the check at 25 s to the one at 75 s.
    await tick(1)
    await tick(4)
    expect(sourceAlerts().map((r) => [r.json.kind, r.json.title])).toEqual([
      ['fired', 'Relay source office unreachable'],
      ['recovered', 'Relay source office recovered after 50 s'],
    ])
    expect(channel.received).toHaveLength(2)
    expect(unwrap(alerts.incidents({ rule: 'relay.source', limit: 10 }))).toEqual([
      expect.objectContaining({ subject: 'source:office', closedAt: expect.any(Number) }),
    ])
  })

  it('closes the incident of a removed source as "source removed", never as recovered', async () => {
    const channel = await recorder()
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    // A relay that stopped before the console ever reached it.
    await relay.stop()
    const clock = manualClock()
    const backend = await consoles({
      dataDir: tempDir(),
      config: { alerts: { channels: { hook: { type: 'webhook' } } } },
      secrets: { 'alert-channel:hook': channel.url },
      clock,
    })
    const { sources, alerts } = backend.services
    const tick = async (times: number) => {
      for (let i = 0; i < times; i++) clock.advance(5_000)
      await alerts.idle()
    }
    // Added as an operator does (saved in config.json), so that removing it takes it away.
    unwrap(await sources.add('office', relay.syncUrl, token))
    await waitFor(() => sources.list()[0]?.state === 'unreachable' || undefined, 'the source unreachable')
    await tick(4)
    expect(channel.received.map((r) => [r.json.kind, r.json.title])).toEqual([
      ['fired', 'Relay source office unreachable'],
    ])
    await tick(9)
    expect(unwrap(await sources.remove('office'))).toEqual({ removed: true })
    await waitFor(() => sources.list().length === 0, 'the source gone from the list')
    await tick(1)
    expect(channel.received.map((r) => [r.json.kind, r.json.severity, r.json.title])).toEqual([
      ['fired', 'critical', 'Relay source office unreachable'],
      ['closed', 'info', 'Relay source office: incident closed after 1 min 5 s (source removed)'],
    ])
    expect(channel.received.some((r) => /recovered/.test(r.json.title))).toBe(false)
    expect(unwrap(alerts.incidents({ rule: 'relay.source', limit: 10 }))).toEqual([
      expect.objectContaining({
        subject: 'source:office',
        closedReason: 'source removed',
        durationMs: 65_000,
      }),
    ])
  })
})
