import type { RpcErrorInfo } from '../../shared/contract/chains'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { RpcOutcome } from './rpc'
import type { BlockRef } from './reorg'

/** Reading JSON-RPC answers: hex quantities, block references, and the errors that mean "this
 * node does not do that" (asked no more on this connection). */

export function quantity(value: unknown): number | null {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(value)) return null
  const n = Number.parseInt(value, 16)
  return Number.isSafeInteger(n) ? n : null
}

export const hex = (n: number) => `0x${n.toString(16)}`

export const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits

/** eth_blockNumber's answer: a hex quantity, or the error that makes the poll a failure. */
export function readHead(outcome: RpcOutcome): Result<number, RpcErrorInfo> {
  if (!outcome.ok) return { ok: false, error: outcome.error }
  const head = quantity(outcome.result)
  return head === null ? { ok: false, error: notAQuantity('eth_blockNumber', outcome.result) } : ok(head)
}

export function notAQuantity(method: string, result: unknown): RpcErrorInfo {
  return {
    kind: 'malformed',
    code: null,
    message: `${method} answered ${JSON.stringify(result)?.slice(0, 60)}, not a hex quantity.`,
  }
}

export function blockRef(result: unknown): BlockRef | null {
  const block = result as { number?: unknown; hash?: unknown; parentHash?: unknown } | null
  const number = quantity(block?.number)
  if (number === null || typeof block?.hash !== 'string') return null
  return {
    number,
    hash: block.hash,
    parentHash: typeof block.parentHash === 'string' ? block.parentHash : null,
  }
}

/** A node that does not know the "finalized" / "safe" tags answers invalid params or unknown block. */
export function refusesTag(error: RpcErrorInfo): boolean {
  return (
    refusesMethod(error) ||
    (error.kind === 'rpc' && (error.code === -32602 || error.code === -39001)) ||
    /unknown block|invalid (block|tag)|finalized|safe block/i.test(error.message)
  )
}

export function refusesMethod(error: RpcErrorInfo): boolean {
  return (
    (error.kind === 'rpc' && error.code === -32601) ||
    /method not found|not supported|not allowed|not available|unsupported/i.test(error.message)
  )
}

export const isRateLimited = (error: RpcErrorInfo) => error.kind === 'http' && error.code === 429
