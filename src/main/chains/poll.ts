import type { BatchResult, RpcCall, RpcClient, RpcOutcome } from './rpc'
import type { ExtrasCheck } from './checks/extras'
import { identityCalls } from './checks/identity'
import type { ReferenceSource } from './checks/reference'

/** The poll itself: one batch to the service node (head, head block unless refused, eth_syncing,
 * the paced extras when due, the identity when due) and, at the same time, one request to each
 * reference. What came back, before any interpretation; the checks read it. */

export interface PollPlan {
  calls: RpcCall[]
  /** eth_blockNumber is left out once the head block answers with its number: one call less. */
  askHead: boolean
  askBlock: boolean
  extras: { calls: RpcCall[]; slow: boolean; from: number }
  identityFrom: number | null
}

export interface Fetched {
  /** eth_blockNumber; null when not asked (the head block's number is the head). */
  head: RpcOutcome | null
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
  block: { refused: boolean; answersHead: boolean },
  extras: ExtrasCheck,
  identityDue: boolean,
): PollPlan {
  const askBlock = !block.refused
  const askHead = !askBlock || !block.answersHead
  const calls: RpcCall[] = askHead ? [{ method: 'eth_blockNumber', params: [] }] : []
  if (askBlock) calls.push({ method: 'eth_getBlockByNumber', params: ['latest', false] })
  const paced = extras.calls(now, askBlock)
  const from = calls.length
  calls.push(...paced.calls)
  const identityFrom = identityDue ? calls.length : null
  if (identityDue) calls.push(...identityCalls)
  return { calls, askHead, askBlock, extras: { ...paced, from }, identityFrom }
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
    head: plan.askHead ? main.outcomes[0]! : null,
    block: plan.askBlock ? main.outcomes[plan.askHead ? 1 : 0]! : null,
    extras: main.outcomes.slice(extras.from, extras.from + extras.calls.length),
    identity: identityFrom === null ? null : main.outcomes.slice(identityFrom),
    references: answers,
    latencyMs: main.latencyMs,
  }
}
