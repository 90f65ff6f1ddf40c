import type { Reorg } from '../../../shared/contract/chains'
import type { RpcClient, RpcOutcome } from '../rpc'
import { ReorgWatch } from '../reorg'
import { blockRef, hex } from '../values'
import type { ReferenceSource } from './reference'

/** Reorganisations, against the corroborated view: a block whose hash changed at a height seen
 * before is a reorg of the service node; its depth is found by walking back while the old hashes
 * keep differing. The references that count are then asked for their block at that height: if
 * one holds the service node's new block, the chain reorganised; if they hold another, the
 * reorg is the service node's alone (flagged as not seen by the references). */
export class ReorgCheck {
  readonly watch = new ReorgWatch()

  async observe(
    client: RpcClient,
    blockOutcome: RpcOutcome | null,
    counted: ReferenceSource[],
    t: number,
  ): Promise<Reorg | null> {
    if (!blockOutcome?.ok) return null
    const block = blockRef(blockOutcome.result)
    if (!block) return null
    const found = await this.watch.observe(block, t, async (height) => {
      const exchange = await client.call({ method: 'eth_getBlockByNumber', params: [hex(height), false] })
      return exchange.outcome.ok ? (blockRef(exchange.outcome.result)?.hash ?? null) : null
    })
    if (!found || counted.length === 0) return found
    const hashes = await Promise.all(counted.map((r) => r.hashAt(block.number)))
    const answered = hashes.filter((h): h is string => h !== null)
    const seen = answered.length === 0 ? null : answered.includes(block.hash)
    this.watch.corroborate(seen)
    return this.watch.last()
  }
}
