import { describe, expect, it } from 'vitest'
import { pollerFor } from '../../../src/main/chains'
import { Config } from '../../../src/shared/config'
import type { ConfigInput } from '../../../src/shared/config'
import type { ChainStatus } from '../../../src/shared/contract/chains'
import { anvilRpc, useAnvil } from '../../support/anvil'

/** Health beyond the head, on real anvil nodes: finalized and safe lag, peers, reorg depth. */

const pollerOver = (chains: ConfigInput['chains']) => pollerFor(Config.parse({ chains }), null)
const statusOf = (chains: ChainStatus[], id: number) => chains.find((c) => c.serviceId === id)!

async function mine(url: string, blocks: number) {
  await anvilRpc(url, 'anvil_mine', [`0x${blocks.toString(16)}`, '0x1'])
}

describe('finality, peers and reorgs on anvil', () => {
  const anvil = useAnvil()

  it('computes finalized and safe lag in blocks and seconds on a node that answers "finalized"', async () => {
    const node = await anvil({ chainId: 1 })
    // anvil_mine with a 1 s interval: 100 blocks, timestamps one second apart.
    await mine(node.url, 100)
    const finalized = (await anvilRpc(node.url, 'eth_getBlockByNumber', ['finalized', false])) as {
      number: string
    }
    const finalizedHead = Number.parseInt(finalized.number, 16)
    // The seconds between the head and the finalized block, as the node stamped them: anvil_mine
    // spaces them by the interval, but its first block takes the wall clock, which may tick meanwhile.
    const stamp = async (tag: string) =>
      Number.parseInt(
        ((await anvilRpc(node.url, 'eth_getBlockByNumber', [tag, false])) as { timestamp: string }).timestamp,
        16,
      )
    const finalizedLagSeconds = (await stamp('0x64')) - (await stamp(finalized.number))
    expect(finalizedLagSeconds).toBeGreaterThanOrEqual(64)
    const poller = pollerOver({
      '1': { url: node.url, stalledAfterSeconds: 86_400, laggingAfterSeconds: 86_400 },
    })
    try {
      const eth = statusOf((await poller.pollRound()).chains, 1)
      expect(eth.head).toBe(100)
      // anvil finalizes 64 blocks (two epochs) behind its head.
      expect(finalizedHead).toBe(36)
      expect(eth.finalized).toEqual({
        supported: true,
        head: 36,
        lagBlocks: 64,
        lagSeconds: finalizedLagSeconds,
      })
      expect(eth.safe.supported).toBe(true)
      expect(eth.safe.lagBlocks).toBe(100 - eth.safe.head!)
      expect(eth.finalizedLagAfterSeconds).toBe(1200)
      // anvil has no peers and refuses net_peerCount: said, not guessed.
      expect(eth.peers).toBeNull()
      expect(eth.peersNote).toBe('net_peerCount is not allowed by this node.')
      expect(eth.syncing).toBeNull()
      expect(eth.status).toBe('healthy')
    } finally {
      poller.stop()
    }
  })

  it('records the depth when the blocks at known heights change hash', async () => {
    const node = await anvil({ chainId: 1 })
    await mine(node.url, 10)
    const poller = pollerOver({
      '1': { url: node.url, stalledAfterSeconds: 86_400, laggingAfterSeconds: 86_400 },
    })
    try {
      const snapshot = (await anvilRpc(node.url, 'evm_snapshot')) as string
      // Three blocks seen one by one, so every height is known to the poller.
      for (let i = 0; i < 3; i++) {
        await anvilRpc(node.url, 'evm_mine')
        await poller.pollRound()
      }
      expect(statusOf(poller.snapshot().chains, 1).head).toBe(13)
      // Back to block 10, then three other blocks (later timestamps, so other hashes).
      await anvilRpc(node.url, 'evm_revert', [snapshot])
      await anvilRpc(node.url, 'evm_increaseTime', [60])
      await mine(node.url, 3)
      const eth = statusOf((await poller.pollRound()).chains, 1)
      expect(eth.head).toBe(13)
      expect(eth.reorgs).toBe(1)
      expect(eth.lastReorg).toMatchObject({ depth: 3, height: 11 })
    } finally {
      poller.stop()
    }
  })
})
