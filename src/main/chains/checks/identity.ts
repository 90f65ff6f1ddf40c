import type { ChainStatus } from '../../../shared/contract/chains'
import type { RpcCall, RpcOutcome } from '../rpc'
import type { ChainTarget } from '../targets'
import { quantity } from '../values'

/** The service node's identity: web3_clientVersion, net_version and eth_chainId, asked once per
 * connection and every few minutes (every 30 s while it mismatches), checked against the registry. */

export interface Identity {
  clientVersion: string | null
  netVersion: string | null
  chainId: number | null
  checkedAt: number
  mismatch: string | null
  verdict: ChainStatus['identity']
  note: string | null
}

export const identityRecheckMs = 5 * 60_000
export const mismatchRecheckMs = 30_000

export const identityCalls: RpcCall[] = [
  { method: 'web3_clientVersion', params: [] },
  { method: 'net_version', params: [] },
  { method: 'eth_chainId', params: [] },
]

export class IdentityCheck {
  current: Identity | null = null

  constructor(private readonly target: ChainTarget) {}

  due(now: number): boolean {
    const id = this.current
    return id === null || now - id.checkedAt > (id.mismatch ? mismatchRecheckMs : identityRecheckMs)
  }

  /** A node that comes back may be another node: ask who it is again. */
  forget(): void {
    this.current = null
  }

  observe(outcomes: RpcOutcome[], t: number): void {
    this.current = checkIdentity(this.target, outcomes, t)
  }
}

export function checkIdentity(target: ChainTarget, outcomes: RpcOutcome[], t: number): Identity {
  const [client, net, chain] = outcomes
  const clientVersion = client?.ok && typeof client.result === 'string' ? client.result : null
  const netVersion =
    net?.ok && (typeof net.result === 'string' || typeof net.result === 'number') ? String(net.result) : null
  const chainId = chain?.ok ? quantity(chain.result) : null
  const { info } = target
  let mismatch: string | null = null
  let verdict: Identity['verdict'] = 'unknown'
  let note: string | null = null
  if (chainId !== null && chainId !== info.expectedChainId) {
    mismatch = `eth_chainId answers ${chainId}, not ${info.expectedChainId}: the slug "${target.slug}" points at another network. Fix chains.${info.serviceId}.slug (or url).`
  } else if (chainId === null && netVersion !== null && netVersion !== info.expectedNetVersion) {
    mismatch = `net_version answers "${netVersion}", not "${info.expectedNetVersion}": the slug "${target.slug}" points at another network. Fix chains.${info.serviceId}.slug (or url).`
  }
  if (mismatch) verdict = 'mismatch'
  else if (chainId !== null) {
    // eth_chainId is the network's identity (EIP-155); net_version is only a hint.
    verdict = 'ok'
    if (netVersion !== null && netVersion !== info.expectedNetVersion) {
      note = `net_version answers "${netVersion}" where this network's nodes usually answer "${info.expectedNetVersion}"; eth_chainId ${chainId} confirms the network.`
    }
  } else if (netVersion !== null) {
    verdict = netVersion === '1' ? 'unverified' : 'ok'
    note =
      netVersion === '1'
        ? 'net_version "1" is shared by Ethereum and Ethereum Classic, and this node does not answer eth_chainId: the network cannot be told apart.'
        : 'The node does not answer eth_chainId; checked by net_version only.'
  } else note = 'The node answers neither net_version nor eth_chainId.'
  return { clientVersion, netVersion, chainId, checkedAt: t, mismatch, verdict, note }
}
