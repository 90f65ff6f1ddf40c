/** The twelve networks of the node-access service (spec 2.6). Ids, names, native currencies and
 * explorers are viem's chain definitions, copied as data so that no bundle (the renderer's, the
 * app's, the command line's) carries viem: test/shared/chains-registry.test.ts fails when one of
 * them no longer equals viem's. The service's prices, the typical block times and the default path
 * slugs (the spec lists none) are ours. Data only, no I/O. */

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
  /** The longest normal pause between blocks: 0 for a chain that makes blocks on a clock; a
   * minute for one whose blocks follow demand (Arbitrum makes a block only for transactions). */
  quietMs: number
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

/** The facts of a chain that viem defines (`viem/chains`). */
interface Chain {
  id: number
  name: string
  nativeCurrency: { name: string; symbol: string; decimals: number }
  explorerUrl: string
}

const chain = (
  id: number,
  name: string,
  [currencyName, symbol]: [string, string],
  explorerUrl: string,
): Chain => ({ id, name, nativeCurrency: { name: currencyName, symbol, decimals: 18 }, explorerUrl })

/** As viem 2 defines them (viem's export name in the comment). */
export const viemChains = {
  kaia: chain(8217, 'Kaia', ['Kaia', 'KAIA'], 'https://kaiascan.io'),
  classic: chain(61, 'Ethereum Classic', ['ETC', 'ETC'], 'https://blockscout.com/etc/mainnet'),
  aurora: chain(1313161554, 'Aurora', ['Ether', 'ETH'], 'https://aurorascan.dev'),
  cronos: chain(25, 'Cronos Mainnet', ['Cronos', 'CRO'], 'https://explorer.cronos.org'),
  optimism: chain(10, 'OP Mainnet', ['Ether', 'ETH'], 'https://optimistic.etherscan.io'),
  bitTorrent: chain(199, 'BitTorrent', ['BitTorrent', 'BTT'], 'https://bttcscan.com'),
  fantom: chain(250, 'Fantom', ['Fantom', 'FTM'], 'https://ftmscan.com'),
  bsc: chain(56, 'BNB Smart Chain', ['BNB', 'BNB'], 'https://bscscan.com'),
  polygon: chain(137, 'Polygon', ['POL', 'POL'], 'https://polygonscan.com'),
  arbitrum: chain(42161, 'Arbitrum One', ['Ether', 'ETH'], 'https://arbiscan.io'),
  astar: chain(592, 'Astar', ['Astar', 'ASTR'], 'https://astar.subscan.io'),
  mainnet: chain(1, 'Ethereum', ['Ether', 'ETH'], 'https://etherscan.io'),
} as const
const {
  kaia,
  classic,
  aurora,
  cronos,
  optimism,
  bitTorrent,
  fantom,
  bsc,
  polygon,
  arbitrum,
  astar,
  mainnet,
} = viemChains

interface Entry {
  chain: Chain
  slug: string
  blockTimeMs: number
  quietMs?: number
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
  { chain: arbitrum, slug: 'arbitrum', blockTimeMs: 250, quietMs: 60_000, prices: [182, null, null] },
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
    quietMs: entry.quietMs ?? 0,
    nodePrices: entry.prices
      ? entry.prices.flatMap((price, i) => (price === null ? [] : [{ type: nodeTypes[i]!, priceUsd: price }]))
      : null,
    expectedNetVersion: entry.netVersion ?? String(chain.id),
    expectedChainId: chain.id,
    defaultSlug: entry.slug,
    explorerUrl: chain.explorerUrl,
  }
}

/** In the spec's order. */
export const chainRegistry: readonly ChainInfo[] = Object.freeze(entries.map(toInfo))

export const serviceIds: readonly number[] = chainRegistry.map((c) => c.serviceId)

export function chainInfo(serviceId: number): ChainInfo | undefined {
  return chainRegistry.find((c) => c.serviceId === serviceId)
}
