import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { setBehaviour, useRpcStandin } from '../../support/rpc-standin'
import type { Behaviour } from '../../support/rpc-standin'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { hmac, polygon, useAlertsRig, useRecorder } from './harness'
import type { Rig } from './harness'

/** Chain rules end to end: the scripted node changes behaviour live (its control endpoint), the
 * poller and the alert rules run on a clock the test moves, alerts go to a local webhook recorder. */

describe('chain alerts', () => {
  const standin = useRpcStandin()
  const recorder = useRecorder()
  const rig = useAlertsRig(useTempDir())

  async function setup(extra: Record<string, unknown> = {}, pollIntervalMs = 5000) {
    const node = await standin(polygon())
    const hook = await recorder()
    const secrets = createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts whsec_alerts_0123` })
    const r = await rig(
      {
        chains: {
          '137': {
            url: node.url,
            pollIntervalMs,
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

  it('raises no alert for one failed poll, one down alert once confirmed (started at the first failure), one recovery timed at the first good poll', async () => {
    const { node, hook, r, status } = await setup()
    expect(status().status).toBe('healthy')

    await setBehaviour(node, 'down')
    await r.nextPoll()
    const firstFailure = Date.parse(status().checkedAt!)
    expect(status().status).toBe('failing')
    expect(status().troubleSince).toBe(firstFailure)
    expect(status().confirming).toEqual({ toward: 'down', count: 1, needed: 3 })
    expect(status().reason).toMatch(/^down if it goes on \(1\/3\): HTTP 503/)
    expect(hook.received).toHaveLength(0)

    await r.nextPoll()
    expect(status().confirming).toEqual({ toward: 'down', count: 2, needed: 3 })
    expect(hook.received).toHaveLength(0)

    // A failing node is polled two intervals apart (10 s): the third failure is 20 s after the first.
    await r.nextPoll()
    expect(Date.parse(status().checkedAt!) - firstFailure).toBe(20_000)
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
    const open = unwrap(r.alerts.incidents({ open: true, limit: 10 }))
    // The incident starts at the first failed poll, not at the confirmation that paged.
    expect(open.map((i) => [i.rule, i.subject, i.closedAt, i.openedAt])).toEqual([
      ['chain.down', 'chain:137', null, firstFailure],
    ])

    await setBehaviour(node, 'ok')
    await r.nextPoll()
    const firstGood = Date.parse(status().checkedAt!)
    expect(status().status).toBe('healthy')
    expect(hook.received).toHaveLength(2)
    const recovered = hook.received[1]!.json
    expect(firstGood - firstFailure).toBe(40_000)
    expect(recovered).toMatchObject({ rule: 'chain.down', kind: 'recovered', durationMs: 40_000 })
    expect(recovered.title).toBe('Polygon recovered after 40 s')

    const incidents = unwrap(r.alerts.incidents({ limit: 10 }))
    expect(incidents).toMatchObject([
      { rule: 'chain.down', openedAt: firstFailure, closedAt: firstGood, durationMs: 40_000, alerts: 2 },
    ])
    expect(incidents[0]!.causes.map((c) => [c.kind, c.rule])).toEqual([
      ['opened', 'chain.down'],
      ['resolved', 'chain.down'],
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

  it('mutes for 20 minutes from the console, then sends again once they are over', async () => {
    // Polled once a minute (a down chain every two minutes): the half hour below is 15 polls.
    const { node, hook, r } = await setup({ repeatMinutes: 10 }, 60_000)
    const muted = r.alerts.mute(20, [137], 'deploy')
    expect(muted.ok && muted.value).toMatchObject({ source: 'console', activeNow: true, chains: [137] })
    await setBehaviour(node, 'down')
    for (let i = 0; i < 3; i++) await r.nextPoll()
    expect(hook.received).toHaveLength(0)
    // Within 40 min a reminder falls after the mute ended.
    while (hook.received.length === 0 && r.clock.now() < Date.parse('2026-03-02T10:40:00Z'))
      await r.nextPoll()
    expect(hook.received.map((h) => h.json.kind)).toEqual(['reminder'])
    expect(hook.received[0]!.json.title).toMatch(/^Polygon down for \d+ (h|min)/)
    const log = r.alerts.log(10)
    // Fired at 10:05:00 (the third failed poll) and a reminder at 10:15:00, both inside the 20
    // minutes: muted. The next reminder (10:25:00) falls after the mute's end (10:20:00.2) and is sent.
    expect(log.ok && log.value.map((l) => [l.rule, l.kind, l.result, new Date(l.t).toISOString()])).toEqual([
      ['chain.down', 'reminder', 'sent', '2026-03-02T10:25:00.200Z'],
      ['chain.down', 'reminder', 'muted', '2026-03-02T10:15:00.200Z'],
      ['chain.down', 'fired', 'muted', '2026-03-02T10:05:00.200Z'],
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

  /** Polls the node in `behaviour` once, then answers normally again; the poll's time. */
  async function onePoll(node: Parameters<typeof setBehaviour>[0], r: Rig, behaviour: Behaviour) {
    await setBehaviour(node, behaviour)
    await r.nextPoll()
    const at = r.clock.now()
    await setBehaviour(node, 'ok')
    return at
  }
  const checkedAt = (status: () => { checkedAt: string | null }) => Date.parse(status().checkedAt!)

  it('raises no alert of any rule for one failed poll and a 1.2 s blip among the first polls', async () => {
    const { node, hook, r, status } = await setup()
    await r.nextPoll()
    await onePoll(node, r, 'down')
    // The failed poll counts once its run ended without becoming an outage (the next good poll).
    await r.nextPoll()
    expect(status().quality).toMatchObject({ errors: 1 })
    await onePoll(node, r, 'slow')
    expect(status().quality.slow).toBe(1)
    // 14 more polls: 1 failure in 19 polls is 5.3 % and the p95 is the slow answer, both above
    // their limits, but one failure and one slow answer are no evidence.
    for (let i = 0; i < 14; i++) await r.nextPoll()
    expect(status().quality).toMatchObject({ polls: 19, errors: 1, slow: 1 })
    expect(status().quality.errorRate).toBeGreaterThan(0.05)
    expect(status().quality.p95Ms).toBeGreaterThan(1_000)
    expect(hook.received).toEqual([])
    expect(unwrap(r.alerts.incidents({ limit: 10 }))).toEqual([])
  })

  it('fires chain.error_rate on three failed polls above 5 %, its incident starting at the first failed poll', async () => {
    const { node, hook, r, status } = await setup()
    for (let i = 0; i < 8; i++) await r.nextPoll()
    const failures: number[] = []
    for (let i = 0; i < 3; i++) {
      await onePoll(node, r, 'down')
      failures.push(checkedAt(status))
      // Two failures (2 of 11 polls, 18 %): above the rate, but not yet the evidence.
      if (i < 2) expect(hook.received).toEqual([])
      await r.nextPoll()
    }
    // Not down (never three failures in a row): the error rate, fired at the good poll after the
    // third failure (a failed poll counts once its run ended without becoming an outage).
    const rules = hook.received.map((h) => [h.json.rule, h.json.kind])
    expect(rules).toEqual([['chain.error_rate', 'fired']])
    expect(hook.received[0]!.json.body).toMatch(/^3 of 15 polls failed over 15 min \(20 %/)
    const [incident] = unwrap(r.alerts.incidents({ rule: 'chain.error_rate', limit: 10 }))
    expect(incident!.openedAt).toBe(failures[0])
  })

  it('fires chain.latency on three slow answers pushing p95 above 1 s, its incident starting at the first', async () => {
    const { node, hook, r, status } = await setup()
    for (let i = 0; i < 9; i++) await r.nextPoll()
    const slow: number[] = []
    for (let i = 0; i < 3; i++) {
      await onePoll(node, r, 'slow')
      slow.push(checkedAt(status))
    }
    expect(status().quality).toMatchObject({ slow: 3, errors: 0 })
    expect(hook.received.map((h) => [h.json.rule, h.json.kind])).toEqual([['chain.latency', 'fired']])
    const [incident] = unwrap(r.alerts.incidents({ rule: 'chain.latency', limit: 10 }))
    expect(incident!.openedAt).toBe(slow[0])
  })
})
