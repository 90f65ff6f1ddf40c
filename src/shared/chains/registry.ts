import {
  arbitrum,
  astar,
  aurora,
  bitTorrent,
  bsc,
  classic,
  cronos,
  fantom,
  kaia,
  mainnet,
  optimism,
  polygon,
} from 'viem/chains'
import type { Chain } from 'viem'

/** The twelve networks of the node-access service (spec 2.6). Names, native currencies and
 * explorers come from viem's chain definitions; the service's prices, the typical block times
 * and the default path slugs (the spec lists none) are ours. Data only, no I/O. */

export type NodeType = 'Fullnode' | 'Archive Node' | 'Testnet'

export interface NodePrice {
  type: NodeType
  /** USD per node; the billing period is not published (spec 2.6). */
  priceUsd: number
}

export interface ChainInfo {
  /** The service id of spec 2.6 (equals the EIP-155 chain id). */
  serviceId: number
  name: string
  currency: { name: string; symbol: string; decimals: number }
  /** Typical time between blocks; seeds the measured moving average. */
  blockTimeMs: number
  /** null: the service does not publish node types or prices for this network. */
  nodePrices: NodePrice[] | null
  /** What `net_version` answers on this network: the service id, except "1" on 61. */
  expectedNetVersion: string
  /** What `eth_chainId` answers; the only way to tell 61 from 1. */
  expectedChainId: number
  /** Path slug in `{rpcBaseUrl}/<slug>/<project uid>`; editable per chain in the config. */
  defaultSlug: string
  explorerUrl: string
}

interface Entry {
  chain: Chain
  slug: string
  blockTimeMs: number
  prices: [number | null, number | null, number | null] | null
  name?: string
  netVersion?: string
}

// Block times: BNB Smart Chain runs at 0.45 s since January 2026 (viem still says 0.75 s),
// Arbitrum 0.25 s, Ethereum 12 s; the others are the networks' usual figures. The poller
// replaces them with what it measures within a few polls.
const entries: Entry[] = [
  { chain: kaia, slug: 'kaia', blockTimeMs: 1000, prices: [728, 1118, 338] },
  { chain: classic, slug: 'etc', blockTimeMs: 13_000, prices: [213, null, null], netVersion: '1' },
  { chain: aurora, slug: 'aurora', blockTimeMs: 1000, prices: [312, 1014, 234] },
  { chain: cronos, slug: 'cronos', blockTimeMs: 5600, prices: [192, null, null], name: 'Cronos' },
  { chain: optimism, slug: 'optimism', blockTimeMs: 2000, prices: [190, 515, 190] },
  { chain: bitTorrent, slug: 'bttc', blockTimeMs: 2000, prices: [234, null, null], name: 'BitTorrent Chain' },
  { chain: fantom, slug: 'fantom', blockTimeMs: 1000, prices: [515, null, null] },
  { chain: bsc, slug: 'bsc', blockTimeMs: 450, prices: [1482, null, null] },
  { chain: polygon, slug: 'polygon', blockTimeMs: 2000, prices: [2132, null, null] },
  { chain: arbitrum, slug: 'arbitrum', blockTimeMs: 250, prices: [182, null, null] },
  { chain: astar, slug: 'astar', blockTimeMs: 12_000, prices: [190, 255, 151] },
  { chain: mainnet, slug: 'ethereum', blockTimeMs: 12_000, prices: null },
]

const nodeTypes: NodeType[] = ['Fullnode', 'Archive Node', 'Testnet']

function toInfo(entry: Entry): ChainInfo {
  const { chain } = entry
  return {
    serviceId: chain.id,
    name: entry.name ?? chain.name,
    currency: { ...chain.nativeCurrency },
    blockTimeMs: entry.blockTimeMs,
    nodePrices: entry.prices
      ? entry.prices.flatMap((price, i) => (price === null ? [] : [{ type: nodeTypes[i]!, priceUsd: price }]))
      : null,
    expectedNetVersion: entry.netVersion ?? String(chain.id),
    expectedChainId: chain.id,
    defaultSlug: entry.slug,
    explorerUrl: chain.blockExplorers?.default.url ?? '',
  }
}

/** In the spec's order. */
export const chainRegistry: readonly ChainInfo[] = Object.freeze(entries.map(toInfo))

export const serviceIds: readonly number[] = chainRegistry.map((c) => c.serviceId)

export function chainInfo(serviceId: number): ChainInfo | undefined {
  return chainRegistry.find((c) => c.serviceId === serviceId)
}
