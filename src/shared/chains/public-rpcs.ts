/** Well-known public RPC endpoints per network, offered as references in Settings and docs
 * (docs/chains.md). Data only: none is ever polled unless the operator adds it to
 * `chains.<id>.references` — polling a public RPC tells its operator this console's address, and
 * a public endpoint may be rate limited, forked or stuck, which is why a reference is checked
 * like the service node and never trusted alone. */

export interface PublicRpc {
  /** The name the reference gets when added (`chains.<id>.references[].name`). */
  name: string
  url: string
  /** Who runs it. */
  operator: string
}

export const publicRpcs: Readonly<Record<number, readonly PublicRpc[]>> = {
  1: [
    { name: 'publicnode', url: 'https://ethereum-rpc.publicnode.com', operator: 'Allnodes (PublicNode)' },
    { name: 'llamarpc', url: 'https://eth.llamarpc.com', operator: 'LlamaNodes' },
    { name: 'reth', url: 'https://ethereum.reth.rs/rpc', operator: 'Paradigm (Reth)' },
  ],
  61: [{ name: 'rivet', url: 'https://etc.rivet.link', operator: 'Rivet' }],
  56: [
    { name: 'bnbchain', url: 'https://bsc-dataseed.bnbchain.org', operator: 'BNB Chain' },
    { name: 'publicnode', url: 'https://bsc-rpc.publicnode.com', operator: 'Allnodes (PublicNode)' },
  ],
  137: [
    { name: 'polygon-rpc', url: 'https://polygon-rpc.com', operator: 'Polygon' },
    { name: 'publicnode', url: 'https://polygon-bor-rpc.publicnode.com', operator: 'Allnodes (PublicNode)' },
    { name: 'drpc', url: 'https://polygon.drpc.org', operator: 'dRPC' },
  ],
  10: [
    { name: 'optimism', url: 'https://mainnet.optimism.io', operator: 'OP Labs' },
    { name: 'publicnode', url: 'https://optimism-rpc.publicnode.com', operator: 'Allnodes (PublicNode)' },
  ],
  42161: [
    { name: 'arbitrum', url: 'https://arb1.arbitrum.io/rpc', operator: 'Offchain Labs' },
    { name: 'publicnode', url: 'https://arbitrum-one-rpc.publicnode.com', operator: 'Allnodes (PublicNode)' },
  ],
  250: [
    { name: 'fantom', url: 'https://rpcapi.fantom.network', operator: 'Fantom Foundation' },
    { name: 'publicnode', url: 'https://fantom-rpc.publicnode.com', operator: 'Allnodes (PublicNode)' },
  ],
  25: [
    { name: 'cronos', url: 'https://evm.cronos.org', operator: 'Cronos Labs' },
    { name: 'publicnode', url: 'https://cronos-evm-rpc.publicnode.com', operator: 'Allnodes (PublicNode)' },
  ],
  8217: [{ name: 'kaia', url: 'https://public-en.node.kaia.io', operator: 'Kaia Foundation' }],
  1313161554: [{ name: 'aurora', url: 'https://mainnet.aurora.dev', operator: 'Aurora Labs' }],
  592: [
    { name: 'astar', url: 'https://evm.astar.network', operator: 'Astar Foundation' },
    { name: 'onfinality', url: 'https://astar.api.onfinality.io/public', operator: 'OnFinality' },
  ],
  199: [{ name: 'bttc', url: 'https://rpc.bittorrentchain.io', operator: 'BitTorrent Chain' }],
}
