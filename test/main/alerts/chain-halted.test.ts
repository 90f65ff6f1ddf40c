import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/main/secrets'
import { hex, jsonRpcNode, useRpcStandin } from '../../support/rpc-standin'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { polygon, useAlertsRig, useRecorder } from './harness'

/** "Chain halted" apart from "node behind": when the service node and every reference stand at
 * the same old height, the chain (or every source) is stuck, not the node. And a chain whose
 * blocks follow demand pages no one for its normal pauses. Scripted nodes, a clock the test moves. */

const start = Date.parse('2026-03-02T10:00:00Z')

/** A deterministic pseudo-random sequence (mulberry32), so the block times are the same each run. */
function seeded(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** Block times of a chain whose blocks follow demand: mostly a quarter second, sometimes a few
 * seconds, now and then a quiet spell of 20–50 s. Timestamps in ms from `from` to `until`. */
function demandDrivenBlocks(from: number, until: number): number[] {
  const random = seeded(42161)
  const times: number[] = []
  for (let t = from; t < until;) {
    times.push(t)
    const r = random()
    t +=
      r < 0.7
        ? 250
        : r < 0.9
          ? 1_000 + 4_000 * random()
          : r < 0.98
            ? 5_000 + 15_000 * random()
            : 20_000 + 30_000 * random()
  }
  return times
}

const hash = (height: number) => `0x${height.toString(16).padStart(64, '0')}`

describe('chain halted', () => {
  const standin = useRpcStandin()
  const recorder = useRecorder()
  const rig = useAlertsRig(useTempDir())

  it('reads "halted or all sources stuck — not your node" when the node and both references stop together, never lagging, with one incident', async () => {
    const node = await standin(polygon())
    const referenceA = await standin(jsonRpcNode({ eth_blockNumber: hex(5000), eth_chainId: hex(137) }))
    const referenceB = await standin(jsonRpcNode({ eth_blockNumber: hex(5000), eth_chainId: hex(137) }))
    const hook = await recorder()
    const r = await rig(
      {
        chains: {
          '137': {
            url: node.url,
            pollIntervalMs: 5000,
            references: [
              { name: 'a', url: referenceA.url },
              { name: 'b', url: referenceB.url },
            ],
          },
        },
        alerts: { channels: { ops: { type: 'webhook' }, desktop: null } },
      },
      createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts whsec_alerts_0123` }),
    )
    const status = () => r.poller.snapshot().chains.find((c) => c.serviceId === 137)!
    const seen = new Set<string>()
    while (r.clock.now() < start + 4 * 60_000) {
      await r.nextPoll()
      seen.add(status().status)
    }
    // Polygon's head block (5000) is 4 min old; both references stand at 5000 too.
    expect(seen.has('lagging')).toBe(false)
    expect(seen.has('stalled')).toBe(false)
    expect(status().status).toBe('halted')
    expect(status().reason).toMatch(
      /^Halted or all sources stuck — not your node: no new block for \d+ s, at height 5000; the node and 2 references stand there together/,
    )
    expect(hook.received.map((h) => [h.json.rule, h.json.kind, h.json.title])).toEqual([
      ['chain.halted', 'fired', 'Polygon halted or all sources stuck — not your node'],
    ])
    const incidents = unwrap(r.alerts.incidents({ limit: 10 }))
    expect(incidents.map((i) => [i.rule, i.closedAt])).toEqual([['chain.halted', null]])
  })

  it('pages no one over 30 minutes of a demand-driven chain’s normal pauses (Arbitrum, no reference)', async () => {
    const blocks = demandDrivenBlocks(start - 60_000, start + 32 * 60_000)
    let now = () => start
    const latest = () => {
      let i = blocks.length - 1
      while (i > 0 && blocks[i]! > now()) i--
      return i
    }
    const block = (height: number) => ({
      number: hex(height),
      hash: hash(height),
      parentHash: hash(height - 1),
      timestamp: hex(Math.floor(blocks[height]! / 1000)),
    })
    const node = await standin(
      jsonRpcNode({
        eth_blockNumber: () => hex(latest()),
        eth_getBlockByNumber: (params: unknown[]) =>
          block(params[0] === 'latest' ? latest() : Math.min(latest(), Number(params[0]))),
        eth_syncing: false,
        web3_clientVersion: 'nitro/v3.2.1',
        net_version: '42161',
        eth_chainId: hex(42161),
      }),
    )
    const hook = await recorder()
    const r = await rig(
      {
        chains: { '42161': { url: node.url, pollIntervalMs: 5000 } },
        alerts: { channels: { ops: { type: 'webhook' }, desktop: null } },
      },
      createMemoryStore({ 'alert-channel:ops': `${hook.url}/alerts whsec_alerts_0123` }),
    )
    now = () => r.clock.now()
    const status = () => r.poller.snapshot().chains.find((c) => c.serviceId === 42161)!
    let oldest = 0
    while (r.clock.now() < start + 30 * 60_000) {
      await r.nextPoll()
      oldest = Math.max(oldest, status().blockAgeSeconds ?? 0)
    }
    // The pauses were real (a head older than the 10 s a clock-driven chain lags after) …
    expect(oldest).toBeGreaterThan(20)
    // … and normal for this chain: no alert, no incident.
    expect(hook.received).toEqual([])
    expect(unwrap(r.alerts.incidents({ limit: 10 }))).toEqual([])
  })
})
