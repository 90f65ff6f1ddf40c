import { describe, expect, it } from 'vitest'
import { Config } from '../../../src/shared/config'
import type { ConfigInput } from '../../../src/shared/config'
import { pollerFor } from '../../../src/main/chains'
import type { ChainStatus } from '../../../src/shared/contract/chains'
import { anvilRpc, headOf, useAnvil } from '../../support/anvil'
import { manualClock } from '../../support/clock'
import type { ManualClock } from '../../support/clock'

/** The poller against real anvil nodes: what a real node can show, it shows here. Blocks are
 * mined on demand and the poller's clock is moved by the test: nothing waits on the wall clock. */

function pollerOver(chains: ConfigInput['chains'], clock?: ManualClock) {
  // Single polls are classified here: no confirmation (chain-alerts.test.ts covers the debounce).
  return pollerFor(Config.parse({ chains }), null, undefined, null, clock, true)
}

async function latestBlockTimestamp(url: string): Promise<number> {
  const block = (await anvilRpc(url, 'eth_getBlockByNumber', ['latest', false])) as { timestamp: string }
  return Number.parseInt(block.timestamp, 16)
}

const statusOf = (chains: ChainStatus[], serviceId: number) => chains.find((c) => c.serviceId === serviceId)!

describe('chains poller against anvil', () => {
  const anvil = useAnvil()

  it('reports heads that advance, with the node identity checked against the registry', async () => {
    // No interval mining: the test mines, so the heads are known exactly.
    const node = await anvil({ chainId: 56 })
    const poller = pollerOver({ '56': { url: node.url } })
    try {
      const first = statusOf((await poller.pollRound()).chains, 56)
      await anvilRpc(node.url, 'evm_mine')
      await anvilRpc(node.url, 'evm_mine')
      const round = (await poller.pollRound()).chains
      const second = statusOf(round, 56)
      expect(first.status).toBe('healthy')
      expect(second.head).toBe(first.head! + 2)
      expect(second.blockAgeSource).toBe('timestamp')
      expect(second.blockAgeSeconds!).toBeLessThan(3)
      expect(second.clientVersion).toMatch(/^anvil\//)
      expect(second.netVersion).toBe('56')
      expect(second.chainId).toBe(56)
      expect(second.identity).toBe('ok')
      expect(second.batch).toBe('yes')
      // Measured, so only bounded: answered within the poll's time-out.
      expect(second.latencyMs).toBeGreaterThan(0)
      expect(second.latencyMs).toBeLessThan(4000)
      // The chains without an endpoint say so rather than pretending to be down.
      expect(statusOf(round, 1).status).toBe('not_configured')
      expect(statusOf(round, 1).reason).toContain('rpcBaseUrl')
    } finally {
      poller.stop()
    }
  })

  it('turns a stopped node down, with the connection error as the reason', async () => {
    const node = await anvil({ chainId: 10, blockTimeSeconds: 1 })
    const poller = pollerOver({ '10': { url: node.url, timeoutMs: 1000 } })
    try {
      expect(statusOf((await poller.pollRound()).chains, 10).status).toBe('healthy')
      await node.stop()
      const down = statusOf((await poller.pollRound()).chains, 10)
      expect(down.status).toBe('down')
      expect(down.error?.kind).toBe('network')
      expect(down.reason).toMatch(/refused|closed/i)
      // The last head reached stays visible.
      expect(down.head).not.toBeNull()
    } finally {
      poller.stop()
    }
  })

  it('turns a node whose mining is paused stalled, with a growing block age', async () => {
    const node = await anvil({ chainId: 137, blockTimeSeconds: 1 })
    const clock = manualClock()
    const poller = pollerOver(
      { '137': { url: node.url, laggingAfterSeconds: 3, stalledAfterSeconds: 4 } },
      clock,
    )
    try {
      await anvilRpc(node.url, 'evm_mine')
      clock.set((await latestBlockTimestamp(node.url)) * 1000 + 500)
      expect(statusOf((await poller.pollRound()).chains, 137).status).toBe('healthy')
      await anvilRpc(node.url, 'evm_setIntervalMining', [0])
      const pausedAt = await headOf(node.url)
      // 5.2 s after the last block, then one more second: stalled after 4 s, and the age grows.
      clock.set((await latestBlockTimestamp(node.url)) * 1000 + 5200)
      const stalled = statusOf((await poller.pollRound()).chains, 137)
      clock.advance(1000)
      const later = statusOf((await poller.pollRound()).chains, 137)
      expect(stalled.status).toBe('stalled')
      expect(stalled.head).toBe(pausedAt)
      expect(stalled.blockAgeSeconds).toBe(5.2)
      expect(stalled.reason).toBe('the head block is 5.2 s old (stalled after 4 s).')
      expect(later.status).toBe('stalled')
      expect(later.blockAgeSeconds).toBe(6.2)
    } finally {
      poller.stop()
    }
  })

  it('turns a node started with another chain id wrong network, even when net_version matches (1 on 61)', async () => {
    // A node of chain 1 behind the Ethereum Classic slug: net_version says "1" on both.
    const node = await anvil({ chainId: 1, blockTimeSeconds: 1 })
    const other = await anvil({ chainId: 137, blockTimeSeconds: 1 })
    const poller = pollerOver({ '61': { url: node.url }, '56': { url: other.url } })
    try {
      const chains = (await poller.pollRound()).chains
      const etc = statusOf(chains, 61)
      const bsc = statusOf(chains, 56)
      expect(etc.netVersion).toBe('1')
      expect(etc.status).toBe('wrong_network')
      expect(etc.reason).toContain('eth_chainId answers 1, not 61')
      expect(bsc.status).toBe('wrong_network')
      expect(bsc.reason).toContain('not 56')
      // Worst first: the wrong networks lead the list.
      expect(chains.slice(0, 2).map((c) => c.status)).toEqual(['wrong_network', 'wrong_network'])
    } finally {
      poller.stop()
    }
  })
})
