/** The JSON-RPC methods of spec 4.3, the ones the RPC console may send. Kept apart from the
 * contract so the renderer can list them without bundling the schema library. */
export const rpcMethods = ['eth_blockNumber', 'net_version', 'web3_clientVersion', 'eth_estimateGas'] as const
export type RpcMethod = (typeof rpcMethods)[number]
