import type { BatchResult, RpcCall, RpcClient, RpcOutcome } from './rpc'
import type { ExtrasCheck } from './checks/extras'
import { identityCalls } from './checks/identity'
import type { ReferenceSource } from './checks/reference'

/** The poll itself: one batch to the service node (head, head block unless refused, eth_syncing,
 * the paced extras when due, the identity when due) and, at the same time, one request to each
 * reference. What came back, before any interpretation; the checks read it. */

export interface PollPlan {
  calls: RpcCall[]
  askBlock: boolean
  extras: { calls: RpcCall[]; slow: boolean; from: number }
  identityFrom: number | null
}

export interface Fetched {
  head: RpcOutcome
  /** null when the node refused eth_getBlockByNumber before (not asked again). */
  block: RpcOutcome | null
  extras: RpcOutcome[]
  /** web3_clientVersion, net_version, eth_chainId; null when the identity was not due. */
  identity: RpcOutcome[] | null
  references: BatchResult[]
  latencyMs: number
}

export function planPoll(
  now: number,
  getBlockRefused: boolean,
  extras: ExtrasCheck,
  identityDue: boolean,
): PollPlan {
  const calls: RpcCall[] = [{ method: 'eth_blockNumber', params: [] }]
  const askBlock = !getBlockRefused
  if (askBlock) calls.push({ method: 'eth_getBlockByNumber', params: ['latest', false] })
  const paced = extras.calls(now, askBlock)
  const from = calls.length
  calls.push(...paced.calls)
  const identityFrom = identityDue ? calls.length : null
  if (identityDue) calls.push(...identityCalls)
  return { calls, askBlock, extras: { ...paced, from }, identityFrom }
}

export async function fetchPoll(
  client: RpcClient,
  plan: PollPlan,
  references: ReferenceSource[],
  now: number,
): Promise<Fetched> {
  const [main, answers] = await Promise.all([
    client.batch(plan.calls),
    Promise.all(references.map((r) => r.fetch(now))),
  ])
  const { extras, identityFrom } = plan
  return {
    head: main.outcomes[0]!,
    block: plan.askBlock ? main.outcomes[1]! : null,
    extras: main.outcomes.slice(extras.from, extras.from + extras.calls.length),
    identity: identityFrom === null ? null : main.outcomes.slice(identityFrom),
    references: answers,
    latencyMs: main.latencyMs,
  }
}
