import type { RpcBaseTest } from '../../shared/contract/settings'
import { chainInfo } from '../../shared/chains/registry'
import type { Config } from '../../shared/config'
import { pollerFor } from './configured'

/** Settings' "Test" of rpcBaseUrl: one round over the twelve chains at that base URL, and which
 * slugs answered with which chain id. Nothing is stored; the running poller is not touched. */
export async function testRpcBase(
  config: Config,
  rpcBaseUrl: string | undefined,
  uid: string | null,
  uidProblem: string | null,
): Promise<RpcBaseTest> {
  const base = rpcBaseUrl ?? config.rpcBaseUrl ?? null
  const poller = pollerFor({ ...config, ...(base ? { rpcBaseUrl: base } : {}) }, uid, undefined, uidProblem)
  try {
    const round = await poller.pollRound()
    const chains = round.chains
      .map((c) => {
        const expected = chainInfo(c.serviceId)!.expectedChainId
        const verdict: RpcBaseTest['chains'][number]['verdict'] =
          c.status === 'not_configured'
            ? 'not_polled'
            : c.chainId !== null && c.chainId !== expected
              ? 'wrong_chain'
              : c.chainId === expected
                ? 'ok'
                : 'failed'
        const detail =
          verdict === 'ok'
            ? `eth_chainId ${c.chainId} in ${c.latencyMs === null ? '?' : Math.round(c.latencyMs)} ms`
            : verdict === 'wrong_chain'
              ? `answered chain id ${c.chainId}, not ${expected}: the slug "${c.slug}" points at another network`
              : (c.error?.message ?? c.reason)
        return {
          serviceId: c.serviceId,
          name: c.name,
          slug: c.slug,
          expectedChainId: expected,
          chainId: c.chainId,
          verdict,
          detail,
        }
      })
      .sort((a, b) => a.serviceId - b.serviceId)
    const right = chains.filter((c) => c.verdict === 'ok').length
    const wrong = chains.filter((c) => c.verdict === 'wrong_chain').length
    const failed = chains.filter((c) => c.verdict === 'failed').length
    const skipped = chains.filter((c) => c.verdict === 'not_polled').length
    const parts = [`${right} of ${chains.length} slugs answered with the right chain id`]
    if (wrong) parts.push(`${wrong} with another chain's id`)
    if (failed) parts.push(`${failed} did not answer`)
    if (skipped) parts.push(`${skipped} not polled`)
    const why =
      right === 0 && skipped === chains.length ? ` (${chains[0]?.detail ?? 'nothing configured'})` : ''
    return {
      rpcBaseUrl: base,
      chains,
      works: right > 0 && wrong === 0 && failed === 0,
      message: `${parts.join(', ')}${why}.`,
    }
  } finally {
    poller.stop()
  }
}
