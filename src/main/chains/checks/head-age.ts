import type { RpcOutcome } from '../rpc'
import type { RpcErrorInfo } from '../../../shared/contract/chains'
import type { Result } from '../../../shared/result'
import { notAQuantity, quantity, refusesMethod } from '../values'

/** The head block's age and the chain's measured block time. The age comes from the head block's
 * timestamp where the node gives the block, else from when this poller last saw the head advance. */

export interface BlockAge {
  head: number
  /** The head block's timestamp (seconds), when the node gave the block. */
  timestamp: number | null
  /** From the head block's timestamp (true) or from when the head last advanced here (false). */
  fromTimestamp: boolean
  seconds: number
  sinceAdvancedSeconds: number
}

const blockTimeWeight = 0.2
/** Block timestamps are whole seconds: measure over at least this span to keep sub-second chains honest. */
const minMeasureSpanSeconds = 5

/** The head of a poll that left eth_blockNumber out: the head block's number, or the error that
 * makes the poll a failure (the next poll asks eth_blockNumber again). */
export function headFromBlock(outcome: RpcOutcome | null): Result<number, RpcErrorInfo> {
  if (!outcome) return { ok: false, error: { kind: 'malformed', code: null, message: 'No head asked.' } }
  if (!outcome.ok) return outcome
  const number = quantity((outcome.result as { number?: unknown } | null)?.number)
  return number === null
    ? { ok: false, error: notAQuantity('eth_getBlockByNumber("latest").number', outcome.result) }
    : { ok: true, value: number }
}

export class HeadAge {
  blockTimeMs: number
  /** The node refused eth_getBlockByNumber: not asked again on this connection. */
  getBlockRefused = false
  /** The head block answered with its number last time: eth_blockNumber need not be asked. */
  blockAnswersHead = false
  private anchor: { head: number; timestamp: number } | null = null
  private lastHead: number | null = null
  private lastAdvanceAt: number | null = null

  constructor(typicalBlockTimeMs: number) {
    this.blockTimeMs = typicalBlockTimeMs
  }

  /** The block may also raise the head (it can be newer than eth_blockNumber's answer).
   * `correctionMs`: what the clock guard found this machine's clock ahead by (0 unless off): the
   * block's age is measured against the corrected clock, the time since an advance is not (both
   * ends of it are read by this clock). */
  observe(
    reportedHead: number | null,
    blockOutcome: RpcOutcome | null,
    t: number,
    correctionMs = 0,
  ): BlockAge {
    let head = reportedHead ?? 0
    let timestamp: number | null = null
    this.blockAnswersHead = false
    if (blockOutcome && !blockOutcome.ok && refusesMethod(blockOutcome.error)) this.getBlockRefused = true
    else if (blockOutcome?.ok) {
      const block = blockOutcome.result as { number?: unknown; timestamp?: unknown } | null
      const ts = quantity(block?.timestamp)
      const number = quantity(block?.number)
      if (ts !== null && number !== null) {
        timestamp = ts
        head = Math.max(head, number)
        this.blockAnswersHead = true
        this.measureBlockTime(number, ts)
      }
    }
    if (this.lastHead === null || head > this.lastHead) this.lastAdvanceAt = t
    this.lastHead = head
    const sinceAdvancedSeconds = (t - (this.lastAdvanceAt ?? t)) / 1000
    return {
      head,
      timestamp,
      fromTimestamp: timestamp !== null,
      seconds: timestamp !== null ? Math.max(0, (t - correctionMs) / 1000 - timestamp) : sinceAdvancedSeconds,
      sinceAdvancedSeconds,
    }
  }

  private measureBlockTime(head: number, timestamp: number): void {
    if (this.anchor === null || head < this.anchor.head) {
      this.anchor = { head, timestamp }
      return
    }
    const span = timestamp - this.anchor.timestamp
    const blocks = head - this.anchor.head
    if (span < minMeasureSpanSeconds || blocks <= 0) return
    const measured = (span * 1000) / blocks
    this.blockTimeMs = this.blockTimeMs * (1 - blockTimeWeight) + measured * blockTimeWeight
    this.anchor = { head, timestamp }
  }
}
