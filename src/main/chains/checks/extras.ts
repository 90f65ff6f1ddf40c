import type { ChainStatus, TagLag } from '../../../shared/contract/chains'
import type { RpcCall, RpcOutcome } from '../rpc'
import type { BlockAge } from './head-age'
import { quantity, refusesMethod, refusesTag, round } from '../values'

/** Beyond the head: finalized and safe lag, sync progress and peers. eth_syncing rides on every
 * poll (a syncing node's head is not the chain's); the tagged blocks and the peer count change
 * slowly and are asked every `pace` (30 s, or every poll when polled slower), so that a poll
 * stays one small batch. Methods the node refuses are not asked again on this connection. */

export interface Extras {
  finalized: TagLag
  safe: TagLag
  syncing: ChainStatus['syncing']
  peers: { peers: number | null; note: string | null }
}

export interface ExtrasAnswers {
  finalized: RpcOutcome | null
  safe: RpcOutcome | null
  syncing: RpcOutcome | null
  peers: RpcOutcome | null
}

type Refusable = 'finalized' | 'safe' | 'eth_syncing' | 'net_peerCount'

export const unknownTag: TagLag = { supported: null, head: null, lagBlocks: null, lagSeconds: null }
const unsupportedTag: TagLag = { supported: false, head: null, lagBlocks: null, lagSeconds: null }
const peersRefused = 'net_peerCount is not allowed by this node.'
export const extrasPaceMs = 30_000

export class ExtrasCheck {
  private readonly refused = new Set<Refusable>()
  private slowAskedAt = -Infinity
  private last: Pick<Extras, 'finalized' | 'safe' | 'peers'> = {
    finalized: unknownTag,
    safe: unknownTag,
    peers: { peers: null, note: null },
  }

  constructor(private readonly pace: number) {}

  /** The calls of this poll, in the order `read` expects them; `withBlocks` false when the node
   * refuses eth_getBlockByNumber. */
  calls(now: number, withBlocks: boolean): { calls: RpcCall[]; slow: boolean } {
    const slow = now - this.slowAskedAt >= this.pace
    const calls: RpcCall[] = []
    if (!this.refused.has('eth_syncing')) calls.push({ method: 'eth_syncing', params: [] })
    if (slow) {
      if (withBlocks && !this.refused.has('finalized'))
        calls.push({ method: 'eth_getBlockByNumber', params: ['finalized', false] })
      if (withBlocks && !this.refused.has('safe'))
        calls.push({ method: 'eth_getBlockByNumber', params: ['safe', false] })
      if (!this.refused.has('net_peerCount')) calls.push({ method: 'net_peerCount', params: [] })
    }
    return { calls, slow }
  }

  /** Pairs the outcomes with the calls they answer. */
  answers(calls: RpcCall[], outcomes: RpcOutcome[]): ExtrasAnswers {
    const out: ExtrasAnswers = { finalized: null, safe: null, syncing: null, peers: null }
    calls.forEach((c, i) => {
      const o = outcomes[i] ?? null
      if (c.method === 'eth_syncing') out.syncing = o
      else if (c.method === 'net_peerCount') out.peers = o
      else if (c.params[0] === 'finalized') out.finalized = o
      else out.safe = o
    })
    return out
  }

  read(answers: ExtrasAnswers, slow: boolean, age: BlockAge, getBlockRefused: boolean, t: number): Extras {
    if (slow) {
      this.slowAskedAt = t
      const headSeconds = age.timestamp ?? t / 1000
      this.last = {
        finalized: this.tagLag('finalized', answers.finalized, age.head, headSeconds, getBlockRefused),
        safe: this.tagLag('safe', answers.safe, age.head, headSeconds, getBlockRefused),
        peers: this.readPeers(answers.peers),
      }
    }
    return { ...this.last, syncing: this.readSyncing(answers.syncing) }
  }

  /** After a failed poll: ask the slow ones again with the next answer. */
  reset(): void {
    this.slowAskedAt = -Infinity
  }

  private tagLag(
    tag: 'finalized' | 'safe',
    outcome: RpcOutcome | null,
    head: number,
    headSeconds: number,
    getBlockRefused: boolean,
  ): TagLag {
    if (this.refused.has(tag) || getBlockRefused) return unsupportedTag
    if (!outcome) return unknownTag
    if (!outcome.ok) {
      if (!refusesTag(outcome.error)) return unknownTag
      this.refused.add(tag)
      return unsupportedTag
    }
    const block = outcome.result as { number?: unknown; timestamp?: unknown } | null
    const number = quantity(block?.number)
    const timestamp = quantity(block?.timestamp)
    // A node without the tag may answer null (pre-merge clients).
    if (number === null) {
      this.refused.add(tag)
      return unsupportedTag
    }
    return {
      supported: true,
      head: number,
      lagBlocks: Math.max(0, head - number),
      lagSeconds: timestamp === null ? null : round(Math.max(0, headSeconds - timestamp), 1),
    }
  }

  private readSyncing(outcome: RpcOutcome | null): ChainStatus['syncing'] {
    if (!outcome) return null
    if (!outcome.ok) {
      if (refusesMethod(outcome.error)) this.refused.add('eth_syncing')
      return null
    }
    if (outcome.result === false || outcome.result === null || typeof outcome.result !== 'object') return null
    const progress = outcome.result as { currentBlock?: unknown; highestBlock?: unknown }
    return { currentBlock: quantity(progress.currentBlock), highestBlock: quantity(progress.highestBlock) }
  }

  private readPeers(outcome: RpcOutcome | null): Extras['peers'] {
    if (this.refused.has('net_peerCount')) return { peers: null, note: peersRefused }
    if (!outcome) return { peers: null, note: null }
    if (!outcome.ok) {
      if (!refusesMethod(outcome.error)) return { peers: null, note: outcome.error.message }
      this.refused.add('net_peerCount')
      return { peers: null, note: peersRefused }
    }
    const peers = quantity(outcome.result)
    return peers === null
      ? { peers: null, note: `net_peerCount answered ${JSON.stringify(outcome.result)?.slice(0, 40)}.` }
      : { peers, note: null }
  }
}
