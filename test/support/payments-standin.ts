import { afterEach } from 'vitest'
import { startPaymentsStandin } from '../../src/main/demo/payments-standin'
import type { Standin, StandinOptions } from '../../src/main/demo/payments-standin'

/** The one payments stand-in lives in src/main/demo (the demo runs it too); tests get it here. */
export * from '../../src/main/demo/payments-standin'

/** A stand-in stopped after each test. */
export function usePaymentsStandin(): (options: StandinOptions) => Promise<Standin> {
  const running: Standin[] = []
  afterEach(async () => {
    for (const s of running.splice(0)) await s.close()
  })
  return async (options) => {
    const s = await startPaymentsStandin(options)
    running.push(s)
    return s
  }
}
