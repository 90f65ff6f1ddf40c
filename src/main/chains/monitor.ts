import type { ChainStatus, RpcErrorInfo } from '../../shared/contract/chains'
import { evaluateHealth } from '../../shared/chains/health'
import { createRpcClient } from './rpc'
import type { RpcCall, RpcClient, RpcOutcome } from './rpc'
import type { ChainTarget } from './targets'

/** One chain's poll: head, head block age, block time, lag, latency and, once per connection (and
 * every few minutes), the node's identity. Keeps what it needs between polls; no timers here. */

export interface Sample {
  serviceId: number
  t: number
  status: ChainStatus['status']
  head: number | null
  ageMs: number | null
  lagBlocks: number | null
  lagMs: number | null
  latencyMs: number | null
  error: RpcErrorInfo | null
}

interface Identity {
  clientVersion: string | null
  netVersion: string | null
  chainId: number | null
  checkedAt: number
  mismatch: string | null
  verdict: ChainStatus['identity']
  note: string | null
}

const identityRecheckMs = 5 * 60_000
const mismatchRecheckMs = 30_000
const blockTimeWeight = 0.2
/** Block timestamps are whole seconds: measure over at least this span to keep sub-second chains honest. */
const minMeasureSpanSeconds = 5

export interface Clock {
  now(): number
}

export class ChainMonitor {
  readonly target: ChainTarget
  private readonly client: RpcClient | null
  private readonly reference: RpcClient | null
  private identity: Identity | null = null
  private blockTimeMs: number
  private anchor: { head: number; timestamp: number } | null = null
  private lastHead: number | null = null
  private lastAdvanceAt: number | null = null
  private getBlockRefused = false
  failures = 0
  private latest: ChainStatus

  constructor(target: ChainTarget, scrub: (text: string) => string) {
    this.target = target
    this.blockTimeMs = target.info.blockTimeMs
    const polled = target.url !== null && target.notConfigured === null
    this.client = polled ? createRpcClient({ url: target.url!, timeoutMs: target.timeoutMs, scrub }) : null
    this.reference =
      polled && target.referenceUrl
        ? createRpcClient({ url: target.referenceUrl, timeoutMs: target.timeoutMs, scrub })
        : null
    this.latest = this.initialStatus()
  }

  get polled(): boolean {
    return this.client !== null
  }

  status(): ChainStatus {
    return this.latest
  }

  /** Raw access for the RPC console (same keep-alive connection, same time-out). */
  rpc(): RpcClient | null {
    return this.client
  }

  close(): void {
    this.client?.close()
    this.reference?.close()
  }

  async poll(now: () => number = Date.now): Promise<{ status: ChainStatus; sample: Sample | null }> {
    if (!this.client) return { status: this.latest, sample: null }
    const started = now()
    const identityDue =
      this.identity === null ||
      started - this.identity.checkedAt > (this.identity.mismatch ? mismatchRecheckMs : identityRecheckMs)
    const calls: RpcCall[] = [{ method: 'eth_blockNumber', params: [] }]
    if (!this.getBlockRefused) calls.push({ method: 'eth_getBlockByNumber', params: ['latest', false] })
    const identityAt = calls.length
    if (identityDue) {
      calls.push(
        { method: 'web3_clientVersion', params: [] },
        { method: 'net_version', params: [] },
        { method: 'eth_chainId', params: [] },
      )
    }
    const [main, reference] = await Promise.all([
      this.client.batch(calls),
      this.reference ? this.reference.call({ method: 'eth_blockNumber', params: [] }) : Promise.resolve(null),
    ])
    const t = now()
    const [headOutcome, blockOutcome] = [main.outcomes[0]!, this.getBlockRefused ? null : main.outcomes[1]!]
    if (!headOutcome.ok || quantity(headOutcome.result) === null) {
      const error = headOutcome.ok ? notAQuantity('eth_blockNumber', headOutcome.result) : headOutcome.error
      return this.failed(error, main.latencyMs, t)
    }
    this.failures = 0
    let head = quantity(headOutcome.result)!
    if (identityDue) this.identity = this.checkIdentity(main.outcomes.slice(identityAt), t)

    let blockTimestamp: number | null = null
    if (blockOutcome) {
      if (!blockOutcome.ok && refusesMethod(blockOutcome.error)) this.getBlockRefused = true
      else if (blockOutcome.ok) {
        const block = blockOutcome.result as { number?: unknown; timestamp?: unknown } | null
        const ts = quantity(block?.timestamp)
        const number = quantity(block?.number)
        if (ts !== null && number !== null) {
          blockTimestamp = ts
          head = Math.max(head, number)
          this.measureBlockTime(number, ts)
        }
      }
    }
    if (this.lastHead === null || head > this.lastHead) this.lastAdvanceAt = t
    this.lastHead = head

    const blockAgeSeconds =
      blockTimestamp !== null
        ? Math.max(0, t / 1000 - blockTimestamp)
        : (t - (this.lastAdvanceAt ?? t)) / 1000
    const referenceHead = reference?.outcome.ok ? quantity(reference.outcome.result) : null
    const blockSeconds = this.blockTimeMs / 1000
    let lagBlocks: number
    let lagSeconds: number
    if (referenceHead !== null) {
      lagBlocks = Math.max(0, referenceHead - head)
      lagSeconds = lagBlocks * blockSeconds
    } else {
      lagSeconds = Math.max(0, blockAgeSeconds - blockSeconds)
      lagBlocks = Math.round(lagSeconds / blockSeconds)
    }
    const evaluation = evaluateHealth(
      {
        notConfigured: null,
        error: null,
        identityMismatch: this.identity?.mismatch ?? null,
        blockAgeSeconds: blockTimestamp !== null ? blockAgeSeconds : null,
        sinceHeadAdvancedSeconds: (t - (this.lastAdvanceAt ?? t)) / 1000,
        referenceLagBlocks: referenceHead !== null ? lagBlocks : null,
        blockTimeMs: this.blockTimeMs,
      },
      this.target.thresholds,
    )
    const referenceNote =
      this.reference && referenceHead === null && reference
        ? ` Reference node: ${reference.outcome.ok ? 'not a block number' : reference.outcome.error.message}`
        : ''
    this.latest = {
      ...this.base(),
      status: evaluation.status,
      reason: evaluation.reason + referenceNote,
      head,
      blockAgeSeconds: round(blockAgeSeconds, 1),
      blockAgeSource: blockTimestamp !== null ? 'timestamp' : 'advance',
      blockTimeMs: Math.round(this.blockTimeMs),
      lagBlocks,
      lagSeconds: round(lagSeconds, 1),
      lagEstimated: referenceHead === null,
      referenceHead,
      latencyMs: round(main.latencyMs, 1),
      error: null,
      checkedAt: new Date(t).toISOString(),
    }
    return {
      status: this.latest,
      sample: {
        serviceId: this.target.info.serviceId,
        t,
        status: evaluation.status,
        head,
        ageMs: Math.round(blockAgeSeconds * 1000),
        lagBlocks,
        lagMs: Math.round(lagSeconds * 1000),
        latencyMs: Math.round(main.latencyMs),
        error: null,
      },
    }
  }

  private failed(error: RpcErrorInfo, latencyMs: number, t: number): { status: ChainStatus; sample: Sample } {
    this.failures += 1
    // A node that comes back may be another node: ask who it is again.
    this.identity = null
    const previous = this.latest
    this.latest = {
      ...this.base(),
      ...carried(previous),
      status: 'down',
      reason: `${error.message}${this.failures > 1 ? ` (${this.failures} polls in a row)` : ''}`,
      latencyMs: error.kind === 'timeout' || error.kind === 'network' ? null : round(latencyMs, 1),
      error,
      checkedAt: new Date(t).toISOString(),
    }
    return {
      status: this.latest,
      sample: {
        serviceId: this.target.info.serviceId,
        t,
        status: 'down',
        head: null,
        ageMs: null,
        lagBlocks: null,
        lagMs: null,
        latencyMs: this.latest.latencyMs === null ? null : Math.round(this.latest.latencyMs),
        error,
      },
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

  private checkIdentity(outcomes: RpcOutcome[], t: number): Identity {
    const [client, net, chain] = outcomes
    const clientVersion = client?.ok && typeof client.result === 'string' ? client.result : null
    const netVersion =
      net?.ok && (typeof net.result === 'string' || typeof net.result === 'number')
        ? String(net.result)
        : null
    const chainId = chain?.ok ? quantity(chain.result) : null
    const { info } = this.target
    let mismatch: string | null = null
    let verdict: Identity['verdict'] = 'unknown'
    let note: string | null = null
    if (chainId !== null && chainId !== info.expectedChainId) {
      mismatch = `eth_chainId answers ${chainId}, not ${info.expectedChainId}: the slug "${this.target.slug}" points at another network. Fix chains.${info.serviceId}.slug (or url).`
    } else if (chainId === null && netVersion !== null && netVersion !== info.expectedNetVersion) {
      mismatch = `net_version answers "${netVersion}", not "${info.expectedNetVersion}": the slug "${this.target.slug}" points at another network. Fix chains.${info.serviceId}.slug (or url).`
    }
    if (mismatch) verdict = 'mismatch'
    else if (chainId !== null) {
      // eth_chainId is the network's identity (EIP-155); net_version is only a hint.
      verdict = 'ok'
      if (netVersion !== null && netVersion !== info.expectedNetVersion) {
        note = `net_version answers "${netVersion}" where this network's nodes usually answer "${info.expectedNetVersion}"; eth_chainId ${chainId} confirms the network.`
      }
    } else if (netVersion !== null) {
      verdict = netVersion === '1' ? 'unverified' : 'ok'
      note =
        netVersion === '1'
          ? 'net_version "1" is shared by Ethereum and Ethereum Classic, and this node does not answer eth_chainId: the network cannot be told apart.'
          : 'The node does not answer eth_chainId; checked by net_version only.'
    } else note = 'The node answers neither net_version nor eth_chainId.'
    return { clientVersion, netVersion, chainId, checkedAt: t, mismatch, verdict, note }
  }

  private base(): Pick<
    ChainStatus,
    | 'serviceId'
    | 'name'
    | 'slug'
    | 'enabled'
    | 'endpoint'
    | 'clientVersion'
    | 'netVersion'
    | 'chainId'
    | 'identity'
    | 'identityNote'
    | 'batch'
    | 'laggingAfterSeconds'
    | 'stalledAfterSeconds'
    | 'blockTimeMs'
  > {
    const { info, thresholds } = this.target
    return {
      serviceId: info.serviceId,
      name: info.name,
      slug: this.target.slug,
      enabled: this.target.enabled,
      endpoint: this.target.endpoint,
      clientVersion: this.identity?.clientVersion ?? null,
      netVersion: this.identity?.netVersion ?? null,
      chainId: this.identity?.chainId ?? null,
      identity: this.identity?.verdict ?? 'unknown',
      identityNote: this.identity?.mismatch ?? this.identity?.note ?? null,
      batch: this.client?.batchSupport() ?? 'unknown',
      laggingAfterSeconds: thresholds.laggingAfterSeconds,
      stalledAfterSeconds: thresholds.stalledAfterSeconds,
      blockTimeMs: Math.round(this.blockTimeMs),
    }
  }

  private initialStatus(): ChainStatus {
    return {
      ...this.base(),
      status: this.target.notConfigured !== null ? 'not_configured' : 'checking',
      reason: this.target.notConfigured ?? 'Waiting for the first poll.',
      head: null,
      blockAgeSeconds: null,
      blockAgeSource: null,
      lagBlocks: null,
      lagSeconds: null,
      lagEstimated: true,
      referenceHead: null,
      latencyMs: null,
      error: null,
      checkedAt: null,
    }
  }
}

/** What a down chain still shows from its last good poll: the head it had reached. */
function carried(
  previous: ChainStatus,
): Pick<
  ChainStatus,
  | 'head'
  | 'blockAgeSeconds'
  | 'blockAgeSource'
  | 'lagBlocks'
  | 'lagSeconds'
  | 'lagEstimated'
  | 'referenceHead'
> {
  return {
    head: previous.head,
    blockAgeSeconds: null,
    blockAgeSource: null,
    lagBlocks: null,
    lagSeconds: null,
    lagEstimated: true,
    referenceHead: null,
  }
}

export function quantity(value: unknown): number | null {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(value)) return null
  const n = Number.parseInt(value, 16)
  return Number.isSafeInteger(n) ? n : null
}

function notAQuantity(method: string, result: unknown): RpcErrorInfo {
  return {
    kind: 'malformed',
    code: null,
    message: `${method} answered ${JSON.stringify(result)?.slice(0, 60)}, not a hex quantity.`,
  }
}

function refusesMethod(error: RpcErrorInfo): boolean {
  return (
    (error.kind === 'rpc' && error.code === -32601) ||
    /method not found|not supported|not allowed|not available|unsupported/i.test(error.message)
  )
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits
