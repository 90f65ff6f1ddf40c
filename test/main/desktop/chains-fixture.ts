import type { ChainStatus } from '../../../src/shared/contract/chains'
import type { ChainStatusKind } from '../../../src/shared/chains/health'

/** A `chains.status` entry shaped like the contract's, with the fields the desktop ignores filled in. */
export function chain(
  serviceId: number,
  name: string,
  status: ChainStatusKind,
  extra: Partial<ChainStatus> = {},
): ChainStatus {
  return {
    serviceId,
    name,
    slug: name.toLowerCase(),
    enabled: status !== 'not_configured',
    endpoint: null,
    status,
    reason: '',
    head: null,
    blockAgeSeconds: null,
    blockAgeSource: null,
    blockTimeMs: 12_000,
    lagBlocks: null,
    lagSeconds: null,
    lagEstimated: false,
    referenceHead: null,
    latencyMs: null,
    clientVersion: null,
    netVersion: null,
    chainId: null,
    identity: 'unknown',
    identityNote: null,
    batch: 'unknown',
    error: null,
    checkedAt: null,
    laggingAfterSeconds: 60,
    stalledAfterSeconds: 120,
    ...extra,
  }
}
