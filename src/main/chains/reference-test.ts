import type { ReferenceTest } from '../../shared/contract/settings'
import { chainInfo } from '../../shared/chains/registry'
import { ReferenceConfig } from '../../shared/config'
import type { Config } from '../../shared/config'
import { maskUrl } from '../../shared/mask'
import { createRpcClient } from './rpc'
import { defaultTimeoutMs, referencesOf } from './targets'
import { quantity, round } from './values'

/** Settings' Test of one reference: eth_chainId and eth_blockNumber in one request, against the
 * saved reference of that name or a URL not saved yet. Nothing is stored; the poller is not
 * touched. (That its head advances shows only over polls: the chain's sources table says.) */
export async function testReference(
  config: Config,
  input: { serviceId: number; name?: string; url?: string; headers?: Record<string, string> },
  scrub: (text: string) => string,
): Promise<ReferenceTest> {
  const info = chainInfo(input.serviceId)
  const expectedChainId = info?.expectedChainId ?? input.serviceId
  const own = config.chains[String(input.serviceId)] ?? {}
  const saved = input.name ? referencesOf(own).find((r) => r.name === input.name) : undefined
  const url = input.url?.trim() || saved?.url
  const base = { serviceId: input.serviceId, name: input.name ?? null, expectedChainId }
  const refused = (endpoint: string, detail: string): ReferenceTest => ({
    ...base,
    endpoint,
    chainId: null,
    head: null,
    latencyMs: null,
    verdict: 'failed',
    detail,
  })
  if (!info) return refused('', `There is no chain with the service id ${input.serviceId}.`)
  if (!url) return refused('', `chains.${input.serviceId} has no reference named "${input.name ?? ''}".`)
  const valid = ReferenceConfig.shape.url.safeParse(url)
  if (!valid.success) return refused(maskUrl(url), `url: ${valid.error.issues[0]?.message ?? 'not a URL'}.`)
  const client = createRpcClient({
    url,
    timeoutMs: own.timeoutMs ?? defaultTimeoutMs,
    scrub,
    headers: input.headers ?? saved?.headers,
  })
  try {
    const answer = await client.batch([
      { method: 'eth_chainId', params: [] },
      { method: 'eth_blockNumber', params: [] },
    ])
    const [chain, head] = answer.outcomes
    const chainId = chain?.ok ? quantity(chain.result) : null
    const height = head?.ok ? quantity(head.result) : null
    const latencyMs = round(answer.latencyMs, 1)
    const result = { ...base, endpoint: maskUrl(url), chainId, head: height, latencyMs }
    if (chainId !== null && chainId !== expectedChainId)
      return {
        ...result,
        verdict: 'wrong_chain',
        detail: `eth_chainId answers ${chainId}, not ${expectedChainId}: another network. It would be excluded.`,
      }
    if (chainId === null || height === null) {
      const failure = [chain, head].find((o) => o && !o.ok)
      return {
        ...result,
        verdict: 'failed',
        detail:
          failure && !failure.ok
            ? failure.error.message
            : 'The answers are not hex quantities: it would be excluded as malformed.',
      }
    }
    return {
      ...result,
      verdict: 'ok',
      detail: `eth_chainId ${chainId}, head ${height.toLocaleString('en-US')}, in ${Math.round(latencyMs)} ms.`,
    }
  } finally {
    client.close()
  }
}
