import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { hex, jsonRpcNode, useRpcStandin } from '../../support/rpc-standin'
import { useTempDir } from '../../support/temp'
import { polygon, useAlertsRig, useRecorder } from './harness'

/** "Sources disagree": the service node (head 5000) and two references whose heads lie far from
 * it and from each other. No head is corroborated; the chain says so, and one alert goes out
 * once it is confirmed (3 polls and 15 s), however many polls it lasts. */

describe('sources disagree', () => {
  const standin = useRpcStandin()
  const recorder = useRecorder()
  const rig = useAlertsRig(useTempDir())

  it('turns the chain’s sources "disagree" and raises one alert, not one per poll', async () => {
    const node = await standin(polygon())
    const high = await standin(jsonRpcNode({ eth_blockNumber: hex(9_000), eth_chainId: hex(137) }))
    const higher = await standin(jsonRpcNode({ eth_blockNumber: hex(20_000), eth_chainId: hex(137) }))
    const hook = await recorder()
    const r = await rig(
      {
        chains: {
          '137': {
            url: node.url,
            pollIntervalMs: 5000,
            stalledAfterSeconds: 86_400,
            laggingAfterSeconds: 86_400,
            disagreeAfterBlocks: 100,
            references: [
              { name: 'high', url: high.url },
              { name: 'higher', url: higher.url },
            ],
          },
        },
        alerts: { channels: { ops: { type: 'webhook' } } },
      },
      createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts whsec_alerts_0123` }),
    )
    const status = () => r.poller.snapshot().chains.find((c) => c.serviceId === 137)!
    expect(status().corroboration.state).toBe('disagree')
    expect(status().corroboration.note).toBe(
      'Sources disagree: heads 20000, 9000, 5000, no two within 100 blocks. Lag estimated from block age until they agree.',
    )
    expect(status().sources.map((s) => [s.name, s.state, s.reason])).toEqual([
      ['service node', 'counted', null],
      ['high', 'excluded', 'disagree'],
      ['higher', 'excluded', 'disagree'],
    ])
    // The service node is not blamed: its own status stays healthy, the lag is an estimate.
    expect(status().status).toBe('healthy')
    expect(status().lagEstimated).toBe(true)
    for (let i = 0; i < 6; i++) await r.nextPoll()
    const alerts = hook.received.map((h) => [h.json.rule, h.json.kind, h.json.title])
    expect(alerts).toEqual([['chain.sources_disagree', 'fired', 'Polygon sources disagree']])
  })
})
