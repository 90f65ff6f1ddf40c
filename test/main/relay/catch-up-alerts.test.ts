import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createRelayToken } from '../../../src/main/relay'
import type { RelayStore } from '../../../src/main/relay'
import type { EventParams } from '../../../src/main/webhooks/sql'
import { groupOf } from '../../../src/shared/events'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'
import { useRecorder } from '../alerts/harness'
import { envelopeBody, useFollowingConsoles, useRelays } from './helpers'

const flaggedAt = new Set([17, 640, 1_333, 2_001, 2_990])
const flaggedIds = [...flaggedAt].map((i) => `evt_burst_${String(i).padStart(5, '0')}`)

function params(i: number): EventParams {
  const id = `evt_burst_${String(i).padStart(5, '0')}`
  const type = flaggedAt.has(i) ? 'compliance.screening.flagged' : 'funding.completed'
  const body = envelopeBody(id, type)
  return {
    id,
    type,
    grp: groupOf(type),
    created_at: '2026-11-25T03:00:00Z',
    created_ms: Date.parse('2026-11-25T03:00:00Z'),
    at: Date.now(),
    endpoint: 'wh_relay',
    data_id: `fund_${id}`,
    body: Buffer.from(body),
    data: JSON.stringify(JSON.parse(body).data),
  }
}

/** 3,000 events (five of them flagged) stored on a relay while the console was closed. */
async function fillWhileAsleep(store: RelayStore): Promise<void> {
  for (let i = 0; i < 3_000; i += 500) {
    const batch = Array.from({ length: 500 }, (_, j) => params(i + j))
    expect((await store.committer.commit(batch, [])).ok).toBe(true)
  }
}

/** A console catching up a burst from a relay (the real sync API, its commit worker, SQLite on
 * disk) and the alerts over it, to a webhook channel recorded by a local server. Each test has room
 * for the catch-up on a loaded machine (it timed out at 30 s in two runs of two at load average
 * 30): the catch-up is awaited, never timed. */
describe('alerts over a catch-up from a relay', () => {
  const postgres = usePostgres()
  const relays = useRelays()
  const tempDir = useTempDir('watchdesk-catch-up-alerts-')
  const recorder = useRecorder()
  const consoles = useFollowingConsoles()

  async function catchUp(store: RelayStore) {
    const channel = await recorder()
    const relay = await relays.relay(store)
    const token = unwrap(await createRelayToken(store, 'laptop'))
    await fillWhileAsleep(store)
    const backend = await consoles({
      dataDir: tempDir(),
      config: {
        sources: { office: { url: relay.syncUrl } },
        alerts: { channels: { hook: { type: 'webhook' } } },
        listener: { publicConsoleUrl: 'https://console.example.com' },
      },
      secrets: { 'source-token:office': token, 'alert-channel:hook': channel.url },
    })
    await waitFor(
      () => backend.services.webhooks.store.count({}, 10_000).count === 3_000,
      '3,000 synced events',
      { timeoutMs: 90_000 },
    )
    await backend.services.alerts.idle()
    const alerts = channel.received.map((r) => r.json).filter((a) => a.rule === 'event.type')
    const log = unwrap(backend.services.alerts.log(100)).filter(
      (r) => r.rule === 'event.type' && r.channel === 'hook',
    )
    return { alerts, log }
  }

  const expectAllFiveAccountedFor = ({ alerts, log }: Awaited<ReturnType<typeof catchUp>>) => {
    // Every flagged event is covered by exactly one alert, named in it with its type.
    const covered = alerts.flatMap((a) => a.events as { id: string; type: string; link: string }[])
    expect(covered.map((e) => e.id).sort()).toEqual(flaggedIds)
    expect(new Set(covered.map((e) => e.type))).toEqual(new Set(['compliance.screening.flagged']))
    // Each one links to itself in the console (no token in a link).
    expect(covered.map((e) => e.link)).toEqual(
      covered.map((e) => `https://console.example.com/#/events/${e.id}`),
    )
    // The catch-up is one burst: the rule waits for its end and sums it up in one alert.
    expect(alerts.map((a) => [a.subject, a.title])).toEqual([
      ['events', '5 alerting events: 5 compliance.screening.flagged'],
    ])
    expect(alerts[0].body).toContain('among 3000 committed')
    // The alert log records every event each alert covered.
    expect(log.flatMap((r) => r.events ?? []).sort()).toEqual(flaggedIds)
    expect(log.every((r) => r.result === 'sent')).toBe(true)
  }

  it('sums up the five flagged events among 3,000 caught up from a relay with a SQLite store in one alert', async () => {
    const store = relays.sqliteStore(join(tempDir(), 'relay.db'))
    expectAllFiveAccountedFor(await catchUp(store))
  }, 120_000)

  it('sums up the five flagged events among 3,000 caught up from a relay with a PostgreSQL store in one alert', async () => {
    const store = await relays.postgresStore(await postgres().createDatabase('catch_up_alerts'))
    expectAllFiveAccountedFor(await catchUp(store))
  }, 120_000)
})
