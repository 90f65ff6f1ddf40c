import { z } from 'zod'
import { chainStatuses } from '../chains/health'
import { method } from './define'

import { rpcMethods } from '../chains/rpc-methods'

export const RpcErrorInfo = z.object({
  /** JSON-RPC error code, the HTTP status for HTTP failures, null for time-outs and network errors. */
  code: z.number().int().nullable(),
  kind: z.enum(['rpc', 'http', 'timeout', 'network', 'malformed']),
  message: z.string(),
})
export type RpcErrorInfo = z.infer<typeof RpcErrorInfo>

/** How far a tagged block ("finalized", "safe") is behind the head; `supported: false` when the
 * node refuses the tag ("not supported by this node"), null fields before it answered. */
export const TagLag = z.object({
  supported: z.boolean().nullable(),
  head: z.number().int().nullable(),
  lagBlocks: z.number().int().nullable(),
  lagSeconds: z.number().nullable(),
})
export type TagLag = z.infer<typeof TagLag>

/** Error rate and latency over the last 15 minutes of polls. HTTP 429 is counted apart. */
export const PollQuality = z.object({
  polls: z.number().int(),
  errors: z.number().int(),
  rateLimited: z.number().int(),
  /** errors ÷ polls (429s not included), null without polls. */
  errorRate: z.number().nullable(),
  p95Ms: z.number().nullable(),
  errorRateAbove: z.number(),
  p95AboveMs: z.number(),
  /** Answers slower than p95AboveMs in the window. */
  slow: z.number().int(),
  /** The first failed poll and the first slow answer still in the window (ms since the epoch):
   * where an error-rate or latency incident starts. */
  firstErrorAt: z.number().nullable(),
  firstSlowAt: z.number().nullable(),
  /** The span the window's polls cover (up to 15 min): shorter after a start. */
  coveredMs: z.number(),
})
export type PollQuality = z.infer<typeof PollQuality>

export const Reorg = z.object({
  /** Blocks replaced: the heights whose hash changed. */
  depth: z.number().int(),
  /** The lowest height that changed. */
  height: z.number().int(),
  at: z.string(),
  /** Whether the counted references hold the service node's new block at that height: true (the
   * chain reorganised), false (only the service node did: a fork of its own), null (no reference
   * could be asked). */
  seenByReferences: z.boolean().nullable().default(null),
})
export type Reorg = z.infer<typeof Reorg>

/** Why a source is left out of the corroborated head. */
export const sourceExclusions = [
  'wrong_chain',
  'malformed',
  'ahead',
  'behind',
  'stalled',
  'errors',
  'rate_limited',
  'disagree',
] as const
export type SourceExclusion = (typeof sourceExclusions)[number]

/** One source of a chain's head (the service node or a reference), scored and explained. */
export const SourceScore = z.object({
  name: z.string(),
  role: z.enum(['service', 'reference']),
  /** The URL with anything secret in its path masked. */
  endpoint: z.string().nullable(),
  head: z.number().int().nullable(),
  /** head − corroborated head (negative: behind); null without either. */
  distance: z.number().int().nullable(),
  latencyMs: z.number().nullable(),
  /** What eth_chainId answered (references: checked every few minutes). */
  chainId: z.number().int().nullable(),
  /** Polls, failed polls and HTTP 429s over the last 15 minutes. */
  polls: z.number().int(),
  errors: z.number().int(),
  rateLimited: z.number().int(),
  /** counted: its head takes part in the corroborated head; the service node is always counted
   * when it answers. checking: no answer yet. */
  state: z.enum(['counted', 'excluded', 'checking']),
  reason: z.enum(sourceExclusions).nullable(),
  /** One sentence: why, with the numbers. */
  detail: z.string(),
  /** When the source entered this state (and reason). */
  since: z.string().nullable(),
})
export type SourceScore = z.infer<typeof SourceScore>

/** How the chain's head was established. corroborated: at least `quorum` sources reached it;
 * estimated: no reference configured or none passed its checks (lag from block age, marked ~);
 * disagree: the sources' heads lie further apart than `disagreeAfterBlocks` with no quorum. */
export const Corroboration = z.object({
  state: z.enum(['corroborated', 'estimated', 'disagree']),
  /** The corroborated head; null when estimated or disagreeing. */
  head: z.number().int().nullable(),
  quorum: z.number().int(),
  /** Sources whose head took part (the service node included). */
  counted: z.number().int(),
  /** Sources configured (the service node included). */
  sources: z.number().int(),
  disagreeAfterBlocks: z.number().int(),
  /** One sentence for the drawer and the CLI. */
  note: z.string(),
})
export type Corroboration = z.infer<typeof Corroboration>

export const ChainStatus = z.object({
  serviceId: z.number().int(),
  name: z.string(),
  slug: z.string(),
  enabled: z.boolean(),
  /** The endpoint with the project uid masked; null when none is configured. */
  endpoint: z.string().nullable(),
  status: z.enum(chainStatuses),
  reason: z.string(),
  head: z.number().int().nullable(),
  blockAgeSeconds: z.number().nullable(),
  /** 'timestamp': from the head block; 'advance': time since the head last advanced (node refused eth_getBlockByNumber). */
  blockAgeSource: z.enum(['timestamp', 'advance']).nullable(),
  blockTimeMs: z.number(),
  lagBlocks: z.number().int().nullable(),
  lagSeconds: z.number().nullable(),
  /** true when no reference is configured or none passes its checks: the lag is estimated from
   * block age and block time (shown with ~). */
  lagEstimated: z.boolean(),
  /** The corroborated head the lag is measured against (null when estimated). */
  referenceHead: z.number().int().nullable(),
  /** The service node and every reference, scored; the corroborated head's rule and state. */
  sources: z.array(SourceScore),
  corroboration: Corroboration,
  latencyMs: z.number().nullable(),
  clientVersion: z.string().nullable(),
  netVersion: z.string().nullable(),
  chainId: z.number().int().nullable(),
  identity: z.enum(['ok', 'mismatch', 'unverified', 'unknown']),
  identityNote: z.string().nullable(),
  batch: z.enum(['yes', 'refused', 'unknown']),
  error: RpcErrorInfo.nullable(),
  checkedAt: z.string().nullable(),
  laggingAfterSeconds: z.number(),
  stalledAfterSeconds: z.number(),
  /** While a bad status is being confirmed ("failing (2/3)"): what it would become, polls so far
   * and polls needed; null otherwise. */
  confirming: z
    .object({
      toward: z.enum(['down', 'stalled', 'wrong_network']),
      count: z.number().int(),
      needed: z.number().int(),
    })
    .nullable(),
  /** When the current run of failed or late polls began (epoch ms): a down chain's first failed
   * poll, a lagging one's first late poll; null while healthy. An incident starts here: the
   * confirmation delays the page, not the start time shown. */
  troubleSince: z.number().nullable(),
  finalized: TagLag,
  safe: TagLag,
  finalizedLagAfterSeconds: z.number(),
  /** eth_syncing's progress while the node syncs; null when synced or not answered. */
  syncing: z
    .object({ currentBlock: z.number().int().nullable(), highestBlock: z.number().int().nullable() })
    .nullable(),
  /** net_peerCount; null when the node does not allow it (`peersNote` says so) or before it answered. */
  peers: z.number().int().nullable(),
  peersNote: z.string().nullable(),
  quality: PollQuality,
  /** The last reorganisation seen since start, and how many. */
  lastReorg: Reorg.nullable(),
  reorgs: z.number().int(),
})
export type ChainStatus = z.infer<typeof ChainStatus>

export const ChainsSnapshot = z.object({ at: z.string(), chains: z.array(ChainStatus) })
export type ChainsSnapshot = z.infer<typeof ChainsSnapshot>

export const HistoryPoint = z.object({
  t: z.number(),
  lagSeconds: z.number().nullable(),
  lagBlocks: z.number().nullable(),
  latencyMs: z.number().nullable(),
  ok: z.boolean(),
})
export type HistoryPoint = z.infer<typeof HistoryPoint>

export const ChainHistory = z.object({
  serviceId: z.number().int(),
  points: z.array(HistoryPoint),
  latencyP50Ms: z.number().nullable(),
  latencyP95Ms: z.number().nullable(),
  errorCount: z.number().int(),
})
export type ChainHistory = z.infer<typeof ChainHistory>

export const RpcExchange = z.object({
  endpoint: z.string(),
  request: z.string(),
  response: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  elapsedMs: z.number(),
  error: RpcErrorInfo.nullable(),
  explanation: z.string().nullable(),
})
export type RpcExchange = z.infer<typeof RpcExchange>

export const ChainInfoSchema = z.object({
  serviceId: z.number().int(),
  name: z.string(),
  currency: z.object({ name: z.string(), symbol: z.string(), decimals: z.number().int() }),
  blockTimeMs: z.number(),
  nodePrices: z
    .array(z.object({ type: z.enum(['Fullnode', 'Archive Node', 'Testnet']), priceUsd: z.number() }))
    .nullable(),
  expectedNetVersion: z.string(),
  expectedChainId: z.number().int(),
  defaultSlug: z.string(),
  explorerUrl: z.string(),
})

const serviceId = z.number().int().positive()

export const chainsMethods = {
  'chains.registry': method(
    'The twelve networks: names, currencies, block times, node types and prices, expected identity, slugs, explorers',
    z.object({}).strict(),
    z.object({ chains: z.array(ChainInfoSchema) }),
  ),
  'chains.list': method(
    'The latest status of all twelve networks, worst first',
    z.object({}).strict(),
    ChainsSnapshot,
  ),
  'chains.history': method(
    'Lag and latency samples of one chain for the last minutes (at most a day), with latency p50/p95 over the last 15 minutes',
    z.object({ serviceId, minutes: z.number().int().min(1).max(1440).default(60) }).strict(),
    ChainHistory,
  ),
  'chains.rpc': method(
    'Sends one of the four node-access methods to a configured chain and returns the raw exchange',
    z
      .object({
        serviceId,
        method: z.enum(rpcMethods),
        params: z.array(z.unknown()).max(4).default([]),
      })
      .strict(),
    RpcExchange,
  ),
}

export const chainsPushes = {
  /** The twelve statuses after each poll round. */
  'chains.status': ChainsSnapshot,
}
