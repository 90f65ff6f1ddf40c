import { describe, expect, it } from 'vitest'
import { Config } from '../../../src/shared/config'
import type { ConfigInput } from '../../../src/shared/config'
import { pollerFor } from '../../../src/main/chains'
import type { ChainStatus } from '../../../src/shared/contract/chains'
import { anvilRpc, headOf, useAnvil } from '../../support/anvil'

/** The poller against real anvil nodes: what a real node can show, it shows here. */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function pollerOver(chains: ConfigInput['chains']) {
  return pollerFor(Config.parse({ chains }), null)
}

const statusOf = (chains: ChainStatus[], serviceId: number) => chains.find((c) => c.serviceId === serviceId)!

describe('chains poller against anvil', () => {
  const anvil = useAnvil()

  it('reports heads that advance, with the node identity checked against the registry', async () => {
    const node = await anvil({ chainId: 56, blockTimeSeconds: 1 })
    const poller = pollerOver({ '56': { url: node.url } })
    try {
      const first = statusOf((await poller.pollRound()).chains, 56)
      await sleep(2200)
      const round = (await poller.pollRound()).chains
      const second = statusOf(round, 56)
      expect(first.status).toBe('healthy')
      expect(second.head!).toBeGreaterThan(first.head!)
      expect(second.blockAgeSource).toBe('timestamp')
      expect(second.blockAgeSeconds!).toBeLessThan(3)
      expect(second.clientVersion).toMatch(/^anvil\//)
      expect(second.netVersion).toBe('56')
      expect(second.chainId).toBe(56)
      expect(second.identity).toBe('ok')
      expect(second.batch).toBe('yes')
      expect(second.latencyMs!).toBeGreaterThan(0)
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
    const poller = pollerOver({ '137': { url: node.url, laggingAfterSeconds: 3, stalledAfterSeconds: 4 } })
    try {
      await sleep(1100)
      expect(statusOf((await poller.pollRound()).chains, 137).status).toBe('healthy')
      await anvilRpc(node.url, 'evm_setIntervalMining', [0])
      const pausedAt = await headOf(node.url)
      await sleep(5200)
      const stalled = statusOf((await poller.pollRound()).chains, 137)
      await sleep(1000)
      const later = statusOf((await poller.pollRound()).chains, 137)
      expect(stalled.status).toBe('stalled')
      expect(stalled.head).toBe(pausedAt)
      expect(stalled.blockAgeSeconds!).toBeGreaterThan(4)
      expect(later.status).toBe('stalled')
      expect(later.blockAgeSeconds!).toBeGreaterThan(stalled.blockAgeSeconds!)
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
