import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { setBehaviour, useRpcStandin } from '../../support/rpc-standin'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { polygon, useAlertsRig, useRecorder } from './harness'

/** One incident per subject, with times an on-call can quote: a scripted node goes down and comes
 * back on a clock the test moves; two real webhook channels (local recorders) take the alerts. */

const intervalMs = 5_000

describe('incidents', () => {
  const standin = useRpcStandin()
  const recorder = useRecorder()
  const rig = useAlertsRig(useTempDir())

  async function setup() {
    const node = await standin(polygon())
    const ops = await recorder()
    const oncall = await recorder()
    const rates = await recorder()
    const secrets = createMemoryStore({
      'alert-channel:ops': `${ops.url}/ops whsec_ops_0123`,
      'alert-channel:oncall': `${oncall.url}/oncall whsec_oncall_0123`,
      'alert-channel:rates': `${rates.url}/rates whsec_rates_0123`,
    })
    const r = await rig(
      {
        chains: {
          '137': {
            url: node.url,
            pollIntervalMs: intervalMs,
            stalledAfterSeconds: 86_400,
            laggingAfterSeconds: 86_400,
          },
        },
        alerts: {
          channels: {
            ops: { type: 'webhook' },
            oncall: { type: 'webhook' },
            // Takes only "down": it still hears how an incident it was paged for ends.
            rates: { type: 'webhook', rules: ['chain.down'] },
            desktop: null,
          },
        },
      },
      secrets,
    )
    const status = () => r.poller.snapshot().chains.find((c) => c.serviceId === 137)!
    return { node, channels: [ops, oncall], rates, r, status }
  }

  it('pages once and recovers once per channel for 40 s of failed polls, with start, recovery and duration an on-call can quote', async () => {
    const { node, channels, r, status } = await setup()
    // The node fails between two polls, 2 s after the last good one, and answers again 40 s later.
    await r.advanceTo(r.clock.now() + 2_000)
    const failedAt = r.clock.now()
    await setBehaviour(node, 'down')
    await r.advanceTo(failedAt + 40_000)
    expect(status().status).toBe('down')
    const answersAt = r.clock.now()
    await setBehaviour(node, 'ok')
    // Two more poll intervals after the recovery, and then a quiet minute: nothing else is sent.
    await r.advanceTo(answersAt + 2 * intervalMs + 60_000)
    expect(status().status).toBe('healthy')

    for (const channel of channels) {
      expect(channel.received.map((h) => [h.json.rule, h.json.kind])).toEqual([
        ['chain.down', 'fired'],
        ['chain.down', 'recovered'],
      ])
    }
    const [incident, ...others] = unwrap(r.alerts.incidents({ limit: 10 }))
    expect(others).toEqual([])
    // Starts within one poll of the first failure (the first failed poll), not at the page.
    expect(incident!.openedAt - failedAt).toBeGreaterThanOrEqual(0)
    expect(incident!.openedAt - failedAt).toBeLessThanOrEqual(intervalMs)
    const fired = channels[0]!.received[0]!.json
    expect(fired.t).toBeGreaterThan(incident!.openedAt)
    // The recovery alert goes out within 15 s of the node answering again.
    const recovered = channels[0]!.received[1]!.json
    expect(recovered.t - answersAt).toBeGreaterThanOrEqual(0)
    expect(recovered.t - answersAt).toBeLessThanOrEqual(15_000)
    // The stated duration is resolved − started, within 5 s of the real outage.
    expect(recovered.durationMs).toBe(incident!.closedAt! - incident!.openedAt)
    expect(Math.abs(recovered.durationMs - (answersAt - failedAt))).toBeLessThanOrEqual(5_000)
    const seconds = Math.round(recovered.durationMs / 1000)
    expect(recovered.title).toBe(`Polygon recovered after ${seconds} s`)
  })

  it('escalates an open error-rate incident to down as an update of the same incident, then resolves it once', async () => {
    const { node, channels, rates, r } = await setup()
    for (let i = 0; i < 8; i++) await r.nextPoll()
    // Three isolated failed polls: the error rate (a warning) opens the chain's incident.
    for (let i = 0; i < 3; i++) {
      await setBehaviour(node, 'down')
      await r.nextPoll()
      await setBehaviour(node, 'ok')
      await r.nextPoll()
    }
    const [ops] = channels
    expect(ops!.received.map((h) => [h.json.rule, h.json.kind])).toEqual([['chain.error_rate', 'fired']])
    // Then an outage: down (critical) takes the same incident over, sent as its escalation.
    await setBehaviour(node, 'down')
    for (let i = 0; i < 4; i++) await r.nextPoll()
    await setBehaviour(node, 'ok')
    await r.nextPoll()
    expect(ops!.received.map((h) => [h.json.rule, h.json.kind, h.json.severity])).toEqual([
      ['chain.error_rate', 'fired', 'warning'],
      ['chain.down', 'escalated', 'critical'],
    ])
    const incidentId = ops!.received[0]!.json.incidentId
    expect(ops!.received[1]!.json.incidentId).toBe(incidentId)
    // The error rate outlasts the outage; the incident resolves once its window no longer holds it.
    await r.advanceTo(r.clock.now() + 16 * 60_000)
    expect(ops!.received.map((h) => h.json.kind)).toEqual(['fired', 'escalated', 'recovered'])
    // The down-only channel: paged by the escalation to down, and told when the incident ends
    // (named by the error rate by then, down among its causes).
    expect(rates.received.map((h) => [h.json.rule, h.json.kind, h.json.causes])).toEqual([
      ['chain.down', 'escalated', ['chain.error_rate', 'chain.down']],
      ['chain.error_rate', 'recovered', ['chain.error_rate', 'chain.down']],
    ])
    const incidents = unwrap(r.alerts.incidents({ limit: 10 }))
    expect(incidents).toHaveLength(1)
    expect(incidents[0]).toMatchObject({ id: incidentId, severity: 'critical', alerts: 8 })
    expect(incidents[0]!.causes.map((c) => [c.kind, c.rule])).toEqual([
      ['opened', 'chain.error_rate'],
      ['escalated', 'chain.down'],
      ['cleared', 'chain.down'],
      ['changed', 'chain.error_rate'],
      ['resolved', 'chain.error_rate'],
    ])
  })
})
