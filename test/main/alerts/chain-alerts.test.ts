import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { setBehaviour, useRpcStandin } from '../../support/rpc-standin'
import { useTempDir } from '../../support/temp'
import { hmac, polygon, useAlertsRig, useRecorder } from './harness'

/** Chain rules end to end: the scripted node changes behaviour live (its control endpoint), the
 * poller and the alert rules run on a clock the test moves, alerts go to a local webhook recorder. */

describe('chain alerts', () => {
  const standin = useRpcStandin()
  const recorder = useRecorder()
  const rig = useAlertsRig(useTempDir())

  async function setup(extra: Record<string, unknown> = {}) {
    const node = await standin(polygon())
    const hook = await recorder()
    const secrets = createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts whsec_alerts_0123` })
    const r = await rig(
      {
        chains: {
          '137': {
            url: node.url,
            pollIntervalMs: 5000,
            stalledAfterSeconds: 86_400,
            laggingAfterSeconds: 86_400,
          },
        },
        // Only the webhook channel: the desktop one, there by default, removed explicitly.
        alerts: { channels: { ops: { type: 'webhook' }, desktop: null }, ...extra },
      },
      secrets,
    )
    const status = () => r.poller.snapshot().chains.find((c: { serviceId: number }) => c.serviceId === 137)!
    return { node, hook, r, status }
  }

  it('raises no alert for one failed poll, one down alert after 30 s of failures, one recovery when it answers again', async () => {
    const { node, hook, r, status } = await setup()
    expect(status().status).toBe('healthy')

    await setBehaviour(node, 'down')
    await r.nextPoll()
    const firstFailure = Date.parse(status().checkedAt!)
    expect(status().status).toBe('failing')
    expect(status().confirming).toEqual({ toward: 'down', count: 1, needed: 3 })
    expect(status().reason).toMatch(/^down if it goes on \(1\/3\): HTTP 503/)
    expect(hook.received).toHaveLength(0)

    await r.nextPoll()
    expect(status().confirming).toEqual({ toward: 'down', count: 2, needed: 3 })
    expect(hook.received).toHaveLength(0)

    await r.nextPoll()
    expect(Date.parse(status().checkedAt!) - firstFailure).toBe(30_000)
    expect(status().status).toBe('down')
    expect(hook.received).toHaveLength(1)
    const down = hook.received[0]!
    expect(down.path).toBe('/alerts')
    expect(down.json).toMatchObject({
      source: 'watchdesk',
      rule: 'chain.down',
      kind: 'fired',
      subject: 'chain:137',
      title: 'Polygon down',
      severity: 'critical',
    })
    expect(down.headers['x-watchdesk-signature']).toBe(hmac('whsec_alerts_0123', down.body))

    // Still down on the next poll: no second alert (the reminder is an hour away).
    await r.nextPoll()
    expect(hook.received).toHaveLength(1)
    const open = r.alerts.incidents({ open: true, limit: 10 })
    expect(open.ok && open.value.map((i) => [i.rule, i.subject, i.closedAt])).toEqual([
      ['chain.down', 'chain:137', null],
    ])

    await setBehaviour(node, 'ok')
    const downSince = down.json.t as number
    await r.nextPoll()
    expect(status().status).toBe('healthy')
    expect(hook.received).toHaveLength(2)
    const recovered = hook.received[1]!.json
    const lasted = r.clock.now() - downSince
    expect(lasted).toBe(100_000)
    expect(recovered).toMatchObject({ rule: 'chain.down', kind: 'recovered', durationMs: 100_000 })
    expect(recovered.title).toBe('Polygon recovered after 1 min 40 s')

    const incidents = r.alerts.incidents({ limit: 10 })
    expect(incidents.ok && incidents.value).toMatchObject([
      { rule: 'chain.down', closedAt: r.clock.now(), durationMs: lasted, alerts: 2 },
    ])
    const log = r.alerts.log(10)
    expect(log.ok && log.value.map((l) => [l.kind, l.channel, l.result])).toEqual([
      ['recovered', 'ops', 'sent'],
      ['fired', 'ops', 'sent'],
    ])
  })

  it('mutes the alerts of a chain inside a maintenance window, and records them as muted', async () => {
    const { node, hook, r } = await setup({
      mute: [
        { from: '2026-03-02T09:00:00Z', to: '2026-03-02T12:00:00Z', chains: [137], reason: 'node upgrade' },
      ],
    })
    await setBehaviour(node, 'down')
    for (let i = 0; i < 3; i++) await r.nextPoll()
    const log = r.alerts.log(10)
    expect(log.ok && log.value.map((l) => [l.rule, l.kind, l.result, l.detail])).toEqual([
      ['chain.down', 'fired', 'muted', 'maintenance window 1 (node upgrade)'],
    ])
    expect(hook.received).toHaveLength(0)
    const incidents = r.alerts.incidents({ open: true, limit: 10 })
    expect(incidents.ok && incidents.value.map((i) => i.title)).toEqual(['Polygon down'])
  })

  it('mutes for an hour from the console, then sends again once the hour is over', async () => {
    const { node, hook, r } = await setup({ repeatMinutes: 30 })
    const muted = r.alerts.mute(60, [137], 'deploy')
    expect(muted.ok && muted.value).toMatchObject({ source: 'console', activeNow: true, chains: [137] })
    await setBehaviour(node, 'down')
    for (let i = 0; i < 3; i++) await r.nextPoll()
    expect(hook.received).toHaveLength(0)
    // Back-off polls a down chain every minute: within 80 min a reminder falls after the mute ended.
    while (hook.received.length === 0 && r.clock.now() < Date.parse('2026-03-02T11:20:00Z'))
      await r.nextPoll()
    expect(hook.received.map((h) => h.json.kind)).toEqual(['reminder'])
    expect(hook.received[0]!.json.title).toMatch(/^Polygon down for \d+ (h|min)/)
    const log = r.alerts.log(10)
    // Fired at 10:00:35 and a reminder at 10:30:40, both inside the hour: muted. The next reminder
    // (10:60:40) falls after the mute's end (11:00:00.2) and is sent.
    expect(log.ok && log.value.map((l) => [l.rule, l.kind, l.result, new Date(l.t).toISOString()])).toEqual([
      ['chain.down', 'reminder', 'sent', '2026-03-02T11:00:40.000Z'],
      ['chain.down', 'reminder', 'muted', '2026-03-02T10:30:40.000Z'],
      ['chain.down', 'fired', 'muted', '2026-03-02T10:00:35.200Z'],
    ])
  })

  it('shows a syncing node as syncing (its own status), and alerts once it is confirmed', async () => {
    const { node, hook, r, status } = await setup()
    await setBehaviour(node, 'syncing')
    await r.nextPoll()
    expect(status().status).toBe('syncing')
    expect(status().syncing).toEqual({ currentBlock: 1200, highestBlock: 5000 })
    expect(status().reason).toMatch(/still syncing at block 1200 of 5000 \(3800 to go\)/)
    await r.nextPoll()
    await r.nextPoll()
    await r.nextPoll()
    expect(hook.received.map((h) => [h.json.rule, h.json.kind])).toEqual([['chain.syncing', 'fired']])
  })

  it('counts HTTP 429 apart as rate limited, not as errors', async () => {
    const { node, r, status } = await setup()
    await setBehaviour(node, 'rate_limited')
    await r.nextPoll()
    await r.nextPoll()
    expect(status().quality).toMatchObject({ polls: 3, errors: 0, rateLimited: 2 })
    expect(status().reason).toMatch(/Rate limited \(HTTP 429\)/)
  })
})
