import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { unwrap } from '../../../src/shared/result'
import { useRpcStandin } from '../../support/rpc-standin'
import { useTempDir } from '../../support/temp'
import { polygon, useAlertsRig, useRecorder } from './harness'

/** The event rule and quiet-endpoint tracking over the committed-events channel and the events
 * table (SQLite on disk), to a webhook channel recorded by a local server; the rules' clock is moved
 * by hand. */
describe('alerts from committed events', () => {
  const standin = useRpcStandin()
  const recorder = useRecorder()
  const rig = useAlertsRig(useTempDir())

  async function setup(alerts: Record<string, unknown> = {}) {
    const node = await standin(polygon())
    const hook = await recorder()
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
        alerts: { channels: { ops: { type: 'webhook' } }, ...alerts },
      },
      createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts` }),
    )
    return { hook, r }
  }

  it('alerts an event once: its redelivery (same id) adds nothing', async () => {
    const { hook, r } = await setup()
    r.commit([{ id: 'evt_pay_1', type: 'payout.failed' }])
    await r.alerts.idle()
    r.commit([{ id: 'evt_pay_1', type: 'payout.failed' }])
    await r.alerts.idle()
    expect(hook.received.map((h) => [h.json.subject, h.json.events])).toEqual([
      ['event:evt_pay_1', [{ id: 'evt_pay_1', type: 'payout.failed', seq: 1 }]],
    ])
  })

  it('makes its event cursor durable with each alert, otherwise at most every 10 s and on stop', async () => {
    const { hook, r } = await setup()
    const durable = () =>
      Number(
        (
          r.db.prepare(`SELECT value FROM meta WHERE key = 'alerts.event_cursor'`).get() as {
            value: string
          }
        ).value,
      )
    const round = async (id: string, type: string) => {
      r.commit([{ id, type }])
      await r.alerts.idle()
    }
    // No alert: read and passed in memory, no commit on the listener's thread for it.
    await round('evt_ok_1', 'funding.completed')
    expect(durable()).toBe(0)
    // An alert is queued with the cursor in one transaction, as before.
    await round('evt_pay_1', 'payout.failed')
    expect(hook.received.map((h) => h.json.subject)).toEqual(['event:evt_pay_1'])
    expect(durable()).toBe(2)
    await round('evt_ok_2', 'funding.completed')
    expect(durable()).toBe(2)
    r.clock.advance(10_000)
    await round('evt_ok_3', 'funding.completed')
    expect(durable()).toBe(4)
    await round('evt_ok_4', 'funding.completed')
    expect(durable()).toBe(4)
    await r.alerts.stop()
    expect(durable()).toBe(5)
    expect(hook.received).toHaveLength(1)
  })

  it('sums up a burst per round, naming how many of which types, and logs every event it covers', async () => {
    const { hook, r } = await setup()
    const burst = [
      ...Array.from({ length: 3 }, (_, i) => ({ id: `evt_flag_${i}`, type: 'compliance.screening.flagged' })),
      ...Array.from({ length: 2 }, (_, i) => ({ id: `evt_fail_${i}`, type: 'payout.failed' })),
      ...Array.from({ length: 1_000 }, (_, i) => ({ id: `evt_ok_${i}`, type: 'funding.completed' })),
    ]
    r.commit(burst)
    await r.alerts.idle()
    expect(hook.received).toHaveLength(1)
    const alert = hook.received[0]!.json
    expect(alert.title).toBe('5 alerting events: 3 compliance.screening.flagged, 2 payout.failed')
    expect(alert.body).toMatch(
      /^5 events of alerting types arrived together .* among 1005 committed: evt_flag_0, /,
    )
    const ids = ['evt_flag_0', 'evt_flag_1', 'evt_flag_2', 'evt_fail_0', 'evt_fail_1']
    expect(alert.events.map((e: { id: string }) => e.id)).toEqual(ids)
    expect(
      unwrap(r.alerts.log(10, undefined))
        .filter((l) => l.channel === 'ops')
        .map((l) => [l.rule, l.result, l.events]),
    ).toEqual([['event.type', 'sent', ids]])
  })

  it('sees an event on a rare endpoint inside a burst larger than the screen push keeps (quiet tracking)', async () => {
    const { hook, r } = await setup({ quietMinutes: { wh_rare: 1 } })
    // The rare endpoint's event first, then 600 more: the screen's push keeps only the newest 500.
    r.commit([
      { id: 'evt_rare', type: 'funding.completed', endpoint: 'wh_rare' },
      ...Array.from({ length: 600 }, (_, i) => ({
        id: `evt_busy_${i}`,
        type: 'funding.completed',
        endpoint: 'wh_busy',
      })),
    ])
    const arrived = r.clock.now()
    for (let i = 0; i < 11; i++) await r.nextPoll()
    expect(r.clock.now() - arrived).toBeGreaterThanOrEqual(50_000)
    expect(r.clock.now() - arrived).toBeLessThan(60_000)
    expect(hook.received).toEqual([])
    for (let i = 0; i < 3; i++) await r.nextPoll()
    expect(hook.received.map((h) => [h.json.rule, h.json.title])).toEqual([
      ['listener.quiet', 'No events on wh_rare for 1 min'],
    ])
    expect(hook.received[0]!.json.body).toBe(
      `The last event arrived ${new Date(arrived).toISOString()}; alerts.quietMinutes.wh_rare is 1.`,
    )
  })
})
