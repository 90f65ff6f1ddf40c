import { describe, expect, it } from 'vitest'
import { pollerFor } from '../../../src/main/chains'
import { Config } from '../../../src/shared/config'
import type { ConfigInput } from '../../../src/shared/config'
import type { ChainStatus } from '../../../src/shared/contract/chains'
import { anvilRpc, headOf, useAnvil } from '../../support/anvil'
import { manualClock } from '../../support/clock'
import type { ManualClock } from '../../support/clock'
import { hex, jsonRpcNode, useRpcStandin } from '../../support/rpc-standin'

/** The corroborated head: real anvil nodes as the service node and its references (heights set
 * by mining), the scripted stand-in only for what anvil cannot answer (another chain's height on
 * the right chain id, a 404). Polygon (2 s blocks): lagging after 5 blocks, stalled after 60 s,
 * sources apart by more than 30 blocks are ahead, behind or disagree. */

const pollerOver = (chains: ConfigInput['chains'], clock?: ManualClock) =>
  pollerFor(Config.parse({ chains }), null, undefined, null, clock, true)
const polygonOf = (round: { chains: ChainStatus[] }) => round.chains.find((c) => c.serviceId === 137)!
const sourceOf = (chain: ChainStatus, name: string) => chain.sources.find((s) => s.name === name)!

async function mineTo(url: string, height: number) {
  const blocks = height - (await headOf(url))
  if (blocks > 0) await anvilRpc(url, 'anvil_mine', [hex(blocks), '0x1'])
}

async function once(chains: ConfigInput['chains']): Promise<ChainStatus> {
  const poller = pollerOver(chains)
  try {
    return polygonOf(await poller.pollRound())
  } finally {
    poller.stop()
  }
}

describe('corroborated head across references', () => {
  const anvil = useAnvil()
  const standin = useRpcStandin()

  it('excludes a reference answering another chain’s height (+30,000,000) with its reason, and the service node shows no lag', async () => {
    const service = await anvil({ chainId: 137 })
    const honest = await anvil({ chainId: 137 })
    await mineTo(service.url, 20)
    await mineTo(honest.url, 20)
    const far = await standin(jsonRpcNode({ eth_blockNumber: hex(30_000_020), eth_chainId: hex(137) }))
    const polygon = await once({
      '137': {
        url: service.url,
        references: [
          { name: 'honest', url: honest.url },
          { name: 'far', url: far.url },
        ],
      },
    })
    expect(polygon.status).toBe('healthy')
    expect(polygon.lagBlocks).toBe(0)
    expect(polygon.lagEstimated).toBe(false)
    expect(polygon.referenceHead).toBe(20)
    expect(polygon.corroboration).toMatchObject({ state: 'corroborated', head: 20 })
    expect(sourceOf(polygon, 'far')).toMatchObject({
      state: 'excluded',
      reason: 'ahead',
      head: 30_000_020,
      distance: 30_000_000,
    })
    expect(sourceOf(polygon, 'far').detail).toMatch(/30000000 blocks ahead of every other source/)
    expect(sourceOf(polygon, 'honest')).toMatchObject({ state: 'counted', distance: 0, chainId: 137 })
  })

  it('excludes a reference on another chain id, and says which id it answered', async () => {
    const service = await anvil({ chainId: 137 })
    const other = await anvil({ chainId: 56 })
    const polygon = await once({
      '137': { url: service.url, references: [{ name: 'bsc-by-mistake', url: other.url }] },
    })
    expect(sourceOf(polygon, 'bsc-by-mistake')).toMatchObject({
      state: 'excluded',
      reason: 'wrong_chain',
      chainId: 56,
    })
    expect(sourceOf(polygon, 'bsc-by-mistake').detail).toBe(
      'eth_chainId answers 56, not 137: another network.',
    )
    // No reference passes: the lag is an estimate again, and the service node is not blamed.
    expect(polygon.lagEstimated).toBe(true)
    expect(polygon.corroboration.state).toBe('estimated')
    expect(polygon.status).toBe('healthy')
  })

  it('excludes a stalled reference while the service node is healthy', async () => {
    const service = await anvil({ chainId: 137 })
    const stuck = await anvil({ chainId: 137 })
    const moving = await anvil({ chainId: 137 })
    await mineTo(service.url, 5)
    await mineTo(stuck.url, 5)
    await mineTo(moving.url, 5)
    const clock = manualClock()
    const latest = async () =>
      Number.parseInt(
        ((await anvilRpc(service.url, 'eth_getBlockByNumber', ['latest', false])) as { timestamp: string })
          .timestamp,
        16,
      )
    const poller = pollerOver(
      {
        '137': {
          url: service.url,
          references: [
            { name: 'stuck', url: stuck.url },
            { name: 'moving', url: moving.url },
          ],
        },
      },
      clock,
    )
    try {
      clock.set((await latest()) * 1000 + 500)
      const first = polygonOf(await poller.pollRound())
      expect(sourceOf(first, 'stuck').state).toBe('counted')
      // 70 s later: the service node and one reference moved on three blocks, "stuck" did not.
      const next = (await latest()) + 70
      await anvilRpc(service.url, 'evm_setNextBlockTimestamp', [next])
      await mineTo(service.url, 8)
      await mineTo(moving.url, 8)
      clock.set(next * 1000 + 500)
      const polygon = polygonOf(await poller.pollRound())
      expect(polygon.status).toBe('healthy')
      expect(sourceOf(polygon, 'stuck')).toMatchObject({ state: 'excluded', reason: 'stalled', head: 5 })
      expect(sourceOf(polygon, 'stuck').detail).toBe(
        'Its head has stayed at 5 for 70 s (stalled after 60 s).',
      )
      expect(sourceOf(polygon, 'stuck').since).toBe(new Date(next * 1000 + 500).toISOString())
      expect(polygon.corroboration).toMatchObject({ state: 'corroborated', head: 8 })
      expect(polygon.lagBlocks).toBe(0)
    } finally {
      poller.stop()
    }
  })

  it('calls the service node 50 blocks behind two agreeing references lagging, lag 50', async () => {
    const service = await anvil({ chainId: 137 })
    const a = await anvil({ chainId: 137 })
    const b = await anvil({ chainId: 137 })
    await mineTo(service.url, 10)
    await mineTo(a.url, 60)
    await mineTo(b.url, 60)
    const polygon = await once({
      '137': {
        url: service.url,
        references: [
          { name: 'a', url: a.url },
          { name: 'b', url: b.url },
        ],
      },
    })
    expect(polygon.status).toBe('lagging')
    expect(polygon.lagBlocks).toBe(50)
    expect(polygon.lagEstimated).toBe(false)
    // Seconds from the block time (2 s typical until measured).
    expect(polygon.lagSeconds).toBe(50 * (polygon.blockTimeMs / 1000))
    expect(polygon.reason).toBe('50 blocks behind the corroborated head of its references (lagging after 5).')
    expect(sourceOf(polygon, 'service node')).toMatchObject({ state: 'counted', distance: -50 })
    expect(polygon.sources.filter((s) => s.role === 'reference').map((s) => s.state)).toEqual([
      'counted',
      'counted',
    ])
  })

  it('does not call the service node lagging when it is ahead of lagging references', async () => {
    const service = await anvil({ chainId: 137 })
    const a = await anvil({ chainId: 137 })
    const b = await anvil({ chainId: 137 })
    await mineTo(service.url, 60)
    await mineTo(a.url, 12)
    await mineTo(b.url, 10)
    const polygon = await once({
      '137': {
        url: service.url,
        references: [
          { name: 'a', url: a.url },
          { name: 'b', url: b.url },
        ],
      },
    })
    expect(polygon.status).toBe('healthy')
    expect(polygon.lagBlocks).toBe(0)
    expect(polygon.corroboration).toMatchObject({ state: 'corroborated', head: 12 })
    expect(sourceOf(polygon, 'service node').distance).toBe(48)
    expect(sourceOf(polygon, 'service node').detail).toMatch(/48 blocks ahead .*ahead is never lag/)
  })

  it('reads the older referenceUrl as one reference beside the listed ones, and scores every source', async () => {
    const service = await anvil({ chainId: 137 })
    const old = await anvil({ chainId: 137 })
    const listed = await anvil({ chainId: 137 })
    const polygon = await once({
      '137': { url: service.url, referenceUrl: old.url, references: [{ name: 'listed', url: listed.url }] },
    })
    expect(polygon.sources.map((s) => [s.name, s.role, s.state])).toEqual([
      ['service node', 'service', 'counted'],
      ['reference', 'reference', 'counted'],
      ['listed', 'reference', 'counted'],
    ])
    expect(polygon.corroboration).toMatchObject({ state: 'corroborated', quorum: 2, sources: 3 })
    for (const s of polygon.sources) {
      expect(s.polls).toBe(1)
      expect(s.errors).toBe(0)
      expect(s.latencyMs).toBeGreaterThan(0)
    }
  })

  it('flags a reorganisation of the service node that its references did not see', async () => {
    const service = await anvil({ chainId: 1 })
    const other = await anvil({ chainId: 1 })
    await anvilRpc(service.url, 'anvil_mine', [hex(10), '0x1'])
    await anvilRpc(other.url, 'anvil_mine', [hex(13), '0x1'])
    // The same node as a second reference: it sees whatever the service node sees.
    const poller = pollerOver({
      '1': {
        url: service.url,
        stalledAfterSeconds: 86_400,
        laggingAfterSeconds: 86_400,
        references: [{ name: 'other', url: other.url }],
      },
    })
    const eth = async () => (await poller.pollRound()).chains.find((c) => c.serviceId === 1)!
    try {
      const snapshot = (await anvilRpc(service.url, 'evm_snapshot')) as string
      for (let i = 0; i < 3; i++) {
        await anvilRpc(service.url, 'evm_mine')
        await eth()
      }
      await anvilRpc(service.url, 'evm_revert', [snapshot])
      await anvilRpc(service.url, 'evm_increaseTime', [60])
      await anvilRpc(service.url, 'anvil_mine', [hex(3), '0x1'])
      const after = await eth()
      expect(after.reorgs).toBe(1)
      expect(after.lastReorg).toMatchObject({ depth: 3, height: 11, seenByReferences: false })
    } finally {
      poller.stop()
    }
  })

  it('marks a reorganisation seen by the references when they hold the new block', async () => {
    const service = await anvil({ chainId: 1 })
    await anvilRpc(service.url, 'anvil_mine', [hex(10), '0x1'])
    // The same node as the reference: it holds whatever the service node holds.
    const poller = pollerOver({
      '1': {
        url: service.url,
        stalledAfterSeconds: 86_400,
        laggingAfterSeconds: 86_400,
        references: [{ name: 'same', url: service.url }],
      },
    })
    const eth = async () => (await poller.pollRound()).chains.find((c) => c.serviceId === 1)!
    try {
      const snapshot = (await anvilRpc(service.url, 'evm_snapshot')) as string
      await anvilRpc(service.url, 'evm_mine')
      await eth()
      await anvilRpc(service.url, 'evm_revert', [snapshot])
      await anvilRpc(service.url, 'evm_increaseTime', [60])
      await anvilRpc(service.url, 'evm_mine')
      const after = await eth()
      expect(after.lastReorg).toMatchObject({ depth: 1, height: 11, seenByReferences: true })
    } finally {
      poller.stop()
    }
  })

  it('excludes a rate-limited reference and one answering malformed heads, each with its reason, and leaves the service node healthy', async () => {
    const service = await anvil({ chainId: 137 })
    const limited = await standin(() => ({ status: 429, body: { error: 'too many requests' } }))
    const garbled = await standin(jsonRpcNode({ eth_blockNumber: 'latest', eth_chainId: hex(137) }))
    const polygon = await once({
      '137': {
        url: service.url,
        references: [
          { name: 'limited', url: limited.url },
          { name: 'garbled', url: garbled.url },
        ],
      },
    })
    expect(polygon.status).toBe('healthy')
    expect(polygon.lagEstimated).toBe(true)
    expect(sourceOf(polygon, 'limited')).toMatchObject({
      state: 'excluded',
      reason: 'rate_limited',
      polls: 1,
      rateLimited: 1,
      errors: 0,
    })
    expect(sourceOf(polygon, 'garbled')).toMatchObject({ state: 'excluded', reason: 'malformed', errors: 1 })
    expect(sourceOf(polygon, 'garbled').detail).toBe('eth_blockNumber answered "latest", not a hex quantity.')
  })

  it('suggests chains.<id>.slug when the chain’s path answers 404', async () => {
    const node = await standin(() => ({ status: 404, body: 'no such route' }))
    const polygon = await once({ '137': { url: `${node.url}/matic/uid` } })
    expect(polygon.status).toBe('down')
    expect(polygon.reason).toMatch(/HTTP 404/)
    expect(polygon.reason).toMatch(/set chains\.137\.slug/)
  })
})
