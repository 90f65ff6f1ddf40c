import { chainRegistry } from '../../shared/chains/registry'
import type { ChainInfo } from '../../shared/chains/registry'
import {
  defaultConfirmFailures,
  defaultErrorRateAbove,
  defaultFinalizedLagSeconds,
  defaultP95AboveMs,
  defaultThresholds,
} from '../../shared/chains/health'
import type { Thresholds } from '../../shared/chains/health'
import type { Config } from '../../shared/config'
import { maskSecret, maskUrl } from '../../shared/mask'

/** What the poller needs to know about one chain, resolved from the registry, the config and
 * the project uid. The full URL holds the uid: it stays here; everything shown uses `endpoint`. */
export interface ChainTarget {
  info: ChainInfo
  slug: string
  enabled: boolean
  /** Full URL with the project uid. Never shown, logged or stored. */
  url: string | null
  /** The URL with the uid masked: the only form that leaves the poller. */
  endpoint: string | null
  /** Other nodes of the network the head is corroborated against (`referenceUrl` is the first,
   * named "reference"). Full URLs and headers: never shown; `endpoint` is the masked form. */
  references: ReferenceTarget[]
  /** Sources that must reach a height for it to be the chain's head. */
  quorum: number
  /** Blocks apart beyond which a source is ahead or behind, or the sources disagree. */
  disagreeAfterBlocks: number
  intervalMs: number
  timeoutMs: number
  thresholds: Thresholds
  /** Failed polls in a row before down/stalled/wrong network (also at least 15 s). */
  confirmFailures: number
  finalizedLagAfterSeconds: number
  errorRateAbove: number
  p95AboveMs: number
  /** Why the chain is not polled, or null. */
  notConfigured: string | null
}

export interface ReferenceTarget {
  name: string
  url: string
  endpoint: string
  headers: Record<string, string>
}

export const defaultTimeoutMs = 4000
export const defaultQuorum = 2

/** A stall's worth of blocks (at least 10): two honest nodes a few slots apart never reach it. */
export function defaultDisagreeAfterBlocks(stalledAfterSeconds: number, blockTimeMs: number): number {
  return Math.max(10, Math.ceil((stalledAfterSeconds * 1000) / blockTimeMs))
}

/** `references`, with the older `referenceUrl` read as one more reference named "reference". */
export function referencesOf(own: Config['chains'][string]): ReferenceTarget[] {
  const listed = (own.references ?? []).map((r) => ({
    name: r.name,
    url: r.url,
    endpoint: maskUrl(r.url),
    headers: r.headers ?? {},
  }))
  if (own.referenceUrl && !listed.some((r) => r.name === 'reference'))
    listed.unshift({
      name: 'reference',
      url: own.referenceUrl,
      endpoint: maskUrl(own.referenceUrl),
      headers: {},
    })
  return listed
}

/** `uidProblem`: why the project uid could not be read (the keychain's own sentence), if it could not. */
export function resolveTargets(
  config: Config,
  projectUid: string | null,
  uidProblem: string | null = null,
): ChainTarget[] {
  return chainRegistry.map((info) => resolveTarget(info, config, projectUid, uidProblem))
}

function resolveTarget(
  info: ChainInfo,
  config: Config,
  projectUid: string | null,
  uidProblem: string | null,
): ChainTarget {
  const own = config.chains[String(info.serviceId)] ?? {}
  const slug = own.slug ?? info.defaultSlug
  const defaults = defaultThresholds(info.blockTimeMs, info.quietMs)
  const stalledAfterSeconds = own.stalledAfterSeconds ?? defaults.stalledAfterSeconds
  const base = {
    info,
    slug,
    enabled: own.enabled ?? true,
    references: referencesOf(own),
    quorum: own.quorum ?? defaultQuorum,
    disagreeAfterBlocks:
      own.disagreeAfterBlocks ?? defaultDisagreeAfterBlocks(stalledAfterSeconds, info.blockTimeMs),
    intervalMs: own.pollIntervalMs ?? config.pollIntervalMs,
    timeoutMs: own.timeoutMs ?? defaultTimeoutMs,
    thresholds: {
      laggingAfterSeconds: own.laggingAfterSeconds ?? defaults.laggingAfterSeconds,
      stalledAfterSeconds,
    },
    confirmFailures: own.confirmFailures ?? defaultConfirmFailures,
    finalizedLagAfterSeconds:
      own.finalizedLagAfterSeconds ?? defaultFinalizedLagSeconds(info.serviceId, info.blockTimeMs),
    errorRateAbove: own.errorRateAbove ?? defaultErrorRateAbove,
    p95AboveMs: own.p95AboveMs ?? defaultP95AboveMs,
  }
  let url: string | null = null
  let endpoint: string | null = null
  let notConfigured: string | null = null
  if (own.url) {
    url = own.url
    endpoint = maskUrl(own.url)
  } else if (config.rpcBaseUrl && projectUid) {
    url = `${config.rpcBaseUrl.replace(/\/+$/, '')}/${slug}/${encodeURIComponent(projectUid)}`
    endpoint = `${config.rpcBaseUrl.replace(/\/+$/, '')}/${slug}/${maskSecret(projectUid)}`
  } else if (!config.rpcBaseUrl) {
    notConfigured = `No endpoint: set rpcBaseUrl (or chains.${info.serviceId}.url) in the config.`
  } else {
    notConfigured = uidProblem
      ? `No project uid: ${uidProblem}`
      : 'No project uid: store it in the keychain (account "project-uid") or set WATCHDESK_PROJECT_UID.'
  }
  if (!base.enabled) notConfigured = `Disabled in the config (chains.${info.serviceId}.enabled is false).`
  return { ...base, url, endpoint, notConfigured }
}
