import { describe, expect, it } from 'vitest'
import { explainEstimateGasError } from '../../src/shared/chains/rpc-errors'

describe('eth_estimateGas error explanations', () => {
  it('explains -32004 as an upfront cost the sender cannot pay', () => {
    const e = explainEstimateGasError({ code: -32004, message: 'upfront cost exceeds account balance' })
    expect(e.kind).toBe('upfront_cost')
    expect(e.text).toMatch(/cannot pay the upfront cost/)
  })

  it('explains insufficient funds for gas × price + value, with the figures the node adds', () => {
    const e = explainEstimateGasError({
      code: -32000,
      message:
        'insufficient funds for gas * price + value: address 0x1111111111111111111111111111111111111111 have 1000 want 21000000 (supplied gas 50000000)',
    })
    expect(e.kind).toBe('insufficient_funds')
    expect(e.text).toMatch(/gas × price \+ value/)
    expect(e.text).toContain('sender 0x1111111111111111111111111111111111111111')
    expect(e.text).toContain('balance 1000')
    expect(e.text).toContain('needed 21000000')
  })

  it('explains insufficient balance for transfer as the value alone', () => {
    const e = explainEstimateGasError({ code: -32000, message: 'insufficient balance for transfer' })
    expect(e.kind).toBe('insufficient_funds')
    expect(e.text).toMatch(/lower than the value it sends/)
  })

  it('explains gas required exceeds allowance, with the figure', () => {
    const e = explainEstimateGasError({ code: -32000, message: 'gas required exceeds allowance (30000000)' })
    expect(e.kind).toBe('gas_allowance')
    expect(e.text).toContain('allowance 30000000')
  })

  it('classifies by the message first: -32003 insufficient funds from another client', () => {
    expect(explainEstimateGasError({ code: -32003, message: 'insufficient funds for transfer' }).kind).toBe(
      'insufficient_funds',
    )
    expect(explainEstimateGasError({ code: -32003, message: 'Insufficient funds' }).kind).toBe(
      'insufficient_funds',
    )
    // Same code, other message: not guessed from the code.
    expect(explainEstimateGasError({ code: -32000, message: 'execution reverted' }).kind).toBe('other')
  })

  it('passes unknown errors through with the node’s own words', () => {
    const e = explainEstimateGasError({ code: -32602, message: 'invalid argument 0' })
    expect(e.kind).toBe('other')
    expect(e.text).toContain('invalid argument 0')
  })
})
