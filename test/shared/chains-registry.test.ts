import { describe, expect, it } from 'vitest'
import * as viem from 'viem/chains'
import { chainInfo, chainRegistry, serviceIds, viemChains } from '../../src/shared/chains/registry'

describe('chain registry', () => {
  it('holds the twelve service ids of spec 2.6, Ethereum as the twelfth', () => {
    expect(serviceIds).toEqual([8217, 61, 1313161554, 25, 10, 199, 250, 56, 137, 42161, 592, 1])
    expect(chainInfo(1)!.name).toBe('Ethereum')
  })

  it('expects net_version to equal the service id, except "1" on 61', () => {
    for (const chain of chainRegistry) {
      expect(chain.expectedNetVersion).toBe(chain.serviceId === 61 ? '1' : String(chain.serviceId))
      expect(chain.expectedChainId).toBe(chain.serviceId)
    }
  })

  it('carries the spec’s prices and leaves Ethereum’s unknown, never 0', () => {
    expect(chainInfo(8217)!.nodePrices).toEqual([
      { type: 'Fullnode', priceUsd: 728 },
      { type: 'Archive Node', priceUsd: 1118 },
      { type: 'Testnet', priceUsd: 338 },
    ])
    expect(chainInfo(61)!.nodePrices).toEqual([{ type: 'Fullnode', priceUsd: 213 }])
    expect(chainInfo(592)!.nodePrices!.map((p) => p.priceUsd)).toEqual([190, 255, 151])
    expect(chainInfo(1)!.nodePrices).toBeNull()
    for (const chain of chainRegistry)
      for (const p of chain.nodePrices ?? []) expect(p.priceUsd).toBeGreaterThan(0)
  })

  it('uses the current block times: BNB 0.45 s, Arbitrum 0.25 s, Ethereum 12 s', () => {
    expect(chainInfo(56)!.blockTimeMs).toBe(450)
    expect(chainInfo(42161)!.blockTimeMs).toBe(250)
    expect(chainInfo(1)!.blockTimeMs).toBe(12_000)
  })

  it('gives every network a unique lowercase slug, a native currency and an https explorer (from viem)', () => {
    const slugs = chainRegistry.map((c) => c.defaultSlug)
    expect(new Set(slugs).size).toBe(12)
    for (const chain of chainRegistry) {
      expect(chain.defaultSlug).toMatch(/^[a-z0-9][a-z0-9-]*$/)
      expect(chain.currency.symbol).not.toBe('')
      expect(chain.explorerUrl).toMatch(/^https:\/\//)
    }
    expect(chainInfo(56)!.currency.symbol).toBe('BNB')
    expect(chainInfo(137)!.currency.symbol).toBe('POL')
  })

  it('copies each chain exactly as viem defines it (no bundle carries viem itself)', () => {
    for (const [exportName, copy] of Object.entries(viemChains)) {
      const defined = viem[exportName as keyof typeof viemChains]
      expect({ exportName, ...copy }).toEqual({
        exportName,
        id: defined.id,
        name: defined.name,
        nativeCurrency: { ...defined.nativeCurrency },
        explorerUrl: defined.blockExplorers?.default.url,
      })
    }
  })
})
