/** Words for the JSON-RPC errors an operator meets on `eth_estimateGas` (spec 7.2). Node clients
 * differ in codes (one answers -32003 for insufficient funds), so the message decides first and
 * the code only when the message says nothing we know. */

export interface RpcErrorLike {
  code: number
  message: string
}

export interface Explanation {
  kind: 'upfront_cost' | 'insufficient_funds' | 'gas_allowance' | 'other'
  text: string
}

const hexOrDec = (s: string) => (/^0x[0-9a-f]+$/i.test(s) ? BigInt(s).toString() : s)

function figures(message: string): string {
  const found: string[] = []
  for (const [label, pattern] of [
    ['sender', /(?:address|sender|from)[:= ]+(0x[0-9a-fA-F]{40})/],
    ['balance', /(?:balance|have)[:= ]+(0x[0-9a-fA-F]+|\d+)/],
    ['needed', /(?:want|cost|need)[:= ]+(0x[0-9a-fA-F]+|\d+)/],
    ['gas', /gas[:= ]+(0x[0-9a-fA-F]+|\d+)/],
  ] as const) {
    const match = pattern.exec(message)
    if (match?.[1]) found.push(`${label} ${label === 'sender' ? match[1] : hexOrDec(match[1])}`)
  }
  return found.length > 0 ? ` The node reports: ${found.join(', ')}.` : ''
}

export function explainEstimateGasError(error: RpcErrorLike): Explanation {
  const m = error.message.toLowerCase()
  if (
    /upfront cost|exceeds account balance|exceeds balance/.test(m) ||
    (error.code === -32004 && !/allowance/.test(m))
  ) {
    return {
      kind: 'upfront_cost',
      text:
        'The sender cannot pay the upfront cost (gas limit × gas price + value) from its balance. ' +
        'Fund the sender, or lower the value or the gas price.' +
        figures(error.message),
    }
  }
  if (/gas required exceeds allowance|exceeds allowance|out of gas|intrinsic gas too/.test(m)) {
    const allowance = /allowance \(?(\d+)\)?/.exec(error.message)?.[1]
    return {
      kind: 'gas_allowance',
      text:
        `The transaction needs more gas than the node allows${allowance ? ` (allowance ${allowance})` : ''}: ` +
        'the call reverts or loops, or the node caps estimates below what it needs. Check the call, or raise the gas cap.',
    }
  }
  if (/insufficient (funds|balance)/.test(m) || error.code === -32003) {
    const transferOnly = /for transfer/.test(m)
    return {
      kind: 'insufficient_funds',
      text:
        (transferOnly
          ? 'The sender’s balance is lower than the value it sends. '
          : 'The sender’s balance does not cover gas × price + value. ') +
        'Fund the sender or send less.' +
        figures(error.message),
    }
  }
  return {
    kind: 'other',
    text: `The node refused the estimate (code ${error.code}): ${error.message}. Node software differs per network; the message is the node’s own.`,
  }
}
