import type { RpcErrorInfo, SourceExclusion } from '../../../shared/contract/chains'
import { QualityWindow } from '../quality'
import { createRpcClient } from '../rpc'
import type { BatchResult, RpcCall, RpcClient } from '../rpc'
import type { ReferenceTarget } from '../targets'
import { identityRecheckMs, mismatchRecheckMs } from './identity'
import { isRateLimited, quantity } from '../values'

/** One reference node, checked like the service node before its head may count: eth_chainId must
 * be the network's (asked with the first poll, every 5 min, every 30 s while it is wrong or
 * unanswered), eth_blockNumber must be a hex quantity, and its head must advance. */

export interface ReferenceReading {
  name: string
  head: number | null
  latencyMs: number | null
  /** Why its own checks leave it out; null when it may count. */
  excluded: { reason: SourceExclusion; detail: string } | null
}

export class ReferenceSource {
  readonly name: string
  readonly endpoint: string
  private readonly client: RpcClient
  private chainId: number | null = null
  private chainIdProblem: string | null = 'eth_chainId not asked yet'
  private chainIdAt = -Infinity
  private lastHead: number | null = null
  private lastAdvanceAt: number | null = null
  readonly quality = new QualityWindow({ latency: false })
  latest: ReferenceReading

  constructor(
    target: ReferenceTarget,
    timeoutMs: number,
    private readonly expectedChainId: number,
    private readonly stalledAfterSeconds: number,
    scrub: (text: string) => string,
  ) {
    this.name = target.name
    this.endpoint = target.endpoint
    this.client = createRpcClient({ url: target.url, timeoutMs, scrub, headers: target.headers })
    this.latest = { name: this.name, head: null, latencyMs: null, excluded: null }
  }

  get checkedChainId(): number | null {
    return this.chainId
  }

  /** This poll's calls: the head, and the chain id when due. One request either way. */
  calls(now: number): RpcCall[] {
    const due = now - this.chainIdAt > (this.chainIdProblem ? mismatchRecheckMs : identityRecheckMs)
    const calls: RpcCall[] = [{ method: 'eth_blockNumber', params: [] }]
    if (due) calls.push({ method: 'eth_chainId', params: [] })
    return calls
  }

  fetch(now: number): Promise<BatchResult> {
    return this.client.batch(this.calls(now))
  }

  /** The block hash at a height, for telling a reorganisation of the chain from one of the
   * service node alone; null when it does not answer one. */
  async hashAt(height: number): Promise<string | null> {
    const exchange = await this.client.call({
      method: 'eth_getBlockByNumber',
      params: [`0x${height.toString(16)}`, false],
    })
    const block = exchange.outcome.ok ? (exchange.outcome.result as { hash?: unknown } | null) : null
    return typeof block?.hash === 'string' ? block.hash : null
  }

  observe(result: BatchResult, t: number): ReferenceReading {
    const [head, chain] = result.outcomes
    // A request that failed as a whole says nothing about the network: the chain id stays due.
    if (chain && head!.ok) this.readChainId(chain, t)
    this.latest = this.read(head!, result.latencyMs, t)
    return this.latest
  }

  close(): void {
    this.client.close()
  }

  private read(outcome: BatchResult['outcomes'][number], latencyMs: number, t: number): ReferenceReading {
    const base = { name: this.name }
    if (!outcome.ok) return this.failure(outcome.error, t)
    const head = quantity(outcome.result)
    if (head === null) {
      this.quality.add(t, 'error', null)
      const detail = `eth_blockNumber answered ${JSON.stringify(outcome.result)?.slice(0, 40)}, not a hex quantity.`
      return { ...base, head: null, latencyMs, excluded: { reason: 'malformed', detail } }
    }
    this.quality.add(t, 'ok', latencyMs)
    if (this.lastHead === null || head > this.lastHead) this.lastAdvanceAt = t
    this.lastHead = head
    const reading = { ...base, head, latencyMs }
    if (this.chainIdProblem)
      return { ...reading, excluded: { reason: 'wrong_chain', detail: this.chainIdProblem } }
    const still = (t - (this.lastAdvanceAt ?? t)) / 1000
    if (still > this.stalledAfterSeconds)
      return {
        ...reading,
        excluded: {
          reason: 'stalled',
          detail: `Its head has stayed at ${head} for ${Math.round(still)} s (stalled after ${this.stalledAfterSeconds} s).`,
        },
      }
    return { ...reading, excluded: null }
  }

  private failure(error: RpcErrorInfo, t: number): ReferenceReading {
    const limited = isRateLimited(error)
    this.quality.add(t, limited ? 'rate_limited' : 'error', null)
    return {
      name: this.name,
      head: null,
      latencyMs: null,
      excluded: limited
        ? {
            reason: 'rate_limited',
            detail: `Rate limited (HTTP 429): poll it less often or use another endpoint.`,
          }
        : { reason: 'errors', detail: error.message },
    }
  }

  private readChainId(outcome: BatchResult['outcomes'][number], t: number): void {
    this.chainIdAt = t
    const id = outcome.ok ? quantity(outcome.result) : null
    this.chainId = id
    if (id === null)
      this.chainIdProblem = outcome.ok
        ? `eth_chainId answered ${JSON.stringify(outcome.result)?.slice(0, 40)}: the network cannot be verified.`
        : `eth_chainId failed (${outcome.error.message}): the network cannot be verified.`
    else if (id !== this.expectedChainId)
      this.chainIdProblem = `eth_chainId answers ${id}, not ${this.expectedChainId}: another network.`
    else this.chainIdProblem = null
  }
}
