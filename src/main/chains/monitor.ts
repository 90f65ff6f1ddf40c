import type { ChainStatus, RpcErrorInfo } from '../../shared/contract/chains'
import { evaluateHealth } from '../../shared/chains/health'
import type { Evaluation } from '../../shared/chains/health'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
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

/** What one poll's batch brought back, before any interpretation. */
interface Fetched {
  head: RpcOutcome
  /** null when the node refused eth_getBlockByNumber before (not asked again). */
  block: RpcOutcome | null
  /** web3_clientVersion, net_version, eth_chainId; null when the identity was not due. */
  identity: RpcOutcome[] | null
  /** The reference node's eth_blockNumber; null without a reference. */
  reference: RpcOutcome | null
  latencyMs: number
}

interface BlockAge {
  head: number
  /** From the head block's timestamp (true) or from when the head last advanced here (false). */
  fromTimestamp: boolean
  seconds: number
  sinceAdvancedSeconds: number
}

interface Lag {
  blocks: number
  seconds: number
  /** The reference node's head, or null when there is none or it did not answer a number. */
  referenceHead: number | null
  /** Why a configured reference gave no head, or null. */
  referenceProblem: string | null
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

  /** One poll, in the order of its steps: fetch the head (with the block and, when due, the
   * identity in the same batch), check the identity, measure the block age, measure the lag,
   * evaluate health, record the status and the sample. */
  async poll(now: () => number = Date.now): Promise<{ status: ChainStatus; sample: Sample | null }> {
    if (!this.client) return { status: this.latest, sample: null }
    const fetched = await this.fetchHead(this.client, now())
    const t = now()
    const head = readHead(fetched.head)
    if (!head.ok) return this.failed(head.error, fetched.latencyMs, t)
    this.failures = 0
    if (fetched.identity) this.identity = this.checkIdentity(fetched.identity, t)
    const age = this.blockAge(head.value, fetched.block, t)
    const lag = this.lag(age, fetched.reference)
    const evaluation = this.evaluate(age, lag)
    return this.record(evaluation, age, lag, fetched, t)
  }

  /** Step 1: one batch to the node (head, head block unless refused, identity when due) and, in
   * parallel, the reference node's head. */
  private async fetchHead(client: RpcClient, started: number): Promise<Fetched> {
    const identityDue =
      this.identity === null ||
      started - this.identity.checkedAt > (this.identity.mismatch ? mismatchRecheckMs : identityRecheckMs)
    const calls: RpcCall[] = [{ method: 'eth_blockNumber', params: [] }]
    const askBlock = !this.getBlockRefused
    if (askBlock) calls.push({ method: 'eth_getBlockByNumber', params: ['latest', false] })
    const identityAt = calls.length
    if (identityDue) {
      calls.push(
        { method: 'web3_clientVersion', params: [] },
        { method: 'net_version', params: [] },
        { method: 'eth_chainId', params: [] },
      )
    }
    const [main, reference] = await Promise.all([
      client.batch(calls),
      this.reference ? this.reference.call({ method: 'eth_blockNumber', params: [] }) : Promise.resolve(null),
    ])
    return {
      head: main.outcomes[0]!,
      block: askBlock ? main.outcomes[1]! : null,
      identity: identityDue ? main.outcomes.slice(identityAt) : null,
      reference: reference?.outcome ?? null,
      latencyMs: main.latencyMs,
    }
  }

  /** Step 3: the head block's age, from its timestamp where the node gives the block, else from
   * when this poller last saw the head advance. The block may also raise the head. */
  private blockAge(reportedHead: number, blockOutcome: RpcOutcome | null, t: number): BlockAge {
    let head = reportedHead
    let timestamp: number | null = null
    if (blockOutcome && !blockOutcome.ok && refusesMethod(blockOutcome.error)) this.getBlockRefused = true
    else if (blockOutcome?.ok) {
      const block = blockOutcome.result as { number?: unknown; timestamp?: unknown } | null
      const ts = quantity(block?.timestamp)
      const number = quantity(block?.number)
      if (ts !== null && number !== null) {
        timestamp = ts
        head = Math.max(head, number)
        this.measureBlockTime(number, ts)
      }
    }
    if (this.lastHead === null || head > this.lastHead) this.lastAdvanceAt = t
    this.lastHead = head
    const sinceAdvancedSeconds = (t - (this.lastAdvanceAt ?? t)) / 1000
    return {
      head,
      fromTimestamp: timestamp !== null,
      seconds: timestamp !== null ? Math.max(0, t / 1000 - timestamp) : sinceAdvancedSeconds,
      sinceAdvancedSeconds,
    }
  }

  /** Step 4: blocks and seconds behind, against the reference node when it answered, else
   * estimated from the block age. */
  private lag(age: BlockAge, reference: RpcOutcome | null): Lag {
    const referenceHead = reference?.ok ? quantity(reference.result) : null
    const blockSeconds = this.blockTimeMs / 1000
    const referenceProblem =
      this.reference && referenceHead === null && reference
        ? reference.ok
          ? 'not a block number'
          : reference.error.message
        : null
    if (referenceHead !== null) {
      const blocks = Math.max(0, referenceHead - age.head)
      return { blocks, seconds: blocks * blockSeconds, referenceHead, referenceProblem }
    }
    const seconds = Math.max(0, age.seconds - blockSeconds)
    return { blocks: Math.round(seconds / blockSeconds), seconds, referenceHead, referenceProblem }
  }

  /** Step 5: the status and its reason, from the shared health rules. */
  private evaluate(age: BlockAge, lag: Lag): Evaluation {
    const evaluation = evaluateHealth(
      {
        notConfigured: null,
        error: null,
        identityMismatch: this.identity?.mismatch ?? null,
        blockAgeSeconds: age.fromTimestamp ? age.seconds : null,
        sinceHeadAdvancedSeconds: age.sinceAdvancedSeconds,
        referenceLagBlocks: lag.referenceHead !== null ? lag.blocks : null,
        blockTimeMs: this.blockTimeMs,
      },
      this.target.thresholds,
    )
    const referenceNote = lag.referenceProblem !== null ? ` Reference node: ${lag.referenceProblem}` : ''
    return { status: evaluation.status, reason: evaluation.reason + referenceNote }
  }

  /** Step 6: the status the UI shows and the sample history stores. */
  private record(
    evaluation: Evaluation,
    age: BlockAge,
    lag: Lag,
    fetched: Fetched,
    t: number,
  ): { status: ChainStatus; sample: Sample } {
    this.latest = {
      ...this.base(),
      status: evaluation.status,
      reason: evaluation.reason,
      head: age.head,
      blockAgeSeconds: round(age.seconds, 1),
      blockAgeSource: age.fromTimestamp ? 'timestamp' : 'advance',
      blockTimeMs: Math.round(this.blockTimeMs),
      lagBlocks: lag.blocks,
      lagSeconds: round(lag.seconds, 1),
      lagEstimated: lag.referenceHead === null,
      referenceHead: lag.referenceHead,
      latencyMs: round(fetched.latencyMs, 1),
      error: null,
      checkedAt: new Date(t).toISOString(),
    }
    return {
      status: this.latest,
      sample: {
        serviceId: this.target.info.serviceId,
        t,
        status: evaluation.status,
        head: age.head,
        ageMs: Math.round(age.seconds * 1000),
        lagBlocks: lag.blocks,
        lagMs: Math.round(lag.seconds * 1000),
        latencyMs: Math.round(fetched.latencyMs),
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
      ...noMeasurement,
      latencyMs: null,
      error: null,
      checkedAt: null,
    }
  }
}

type Measurement = Pick<
  ChainStatus,
  'blockAgeSeconds' | 'blockAgeSource' | 'lagBlocks' | 'lagSeconds' | 'lagEstimated' | 'referenceHead'
>

/** Before the first good poll, and while a chain is down: nothing measured. */
const noMeasurement: Measurement = {
  blockAgeSeconds: null,
  blockAgeSource: null,
  lagBlocks: null,
  lagSeconds: null,
  lagEstimated: true,
  referenceHead: null,
}

/** What a down chain still shows from its last good poll: the head it had reached. */
function carried(previous: ChainStatus): Pick<ChainStatus, 'head'> & Measurement {
  return { head: previous.head, ...noMeasurement }
}

export function quantity(value: unknown): number | null {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(value)) return null
  const n = Number.parseInt(value, 16)
  return Number.isSafeInteger(n) ? n : null
}

/** Step 1's head: a hex quantity, or the error that makes this poll a failure. */
function readHead(outcome: RpcOutcome): Result<number, RpcErrorInfo> {
  if (!outcome.ok) return { ok: false, error: outcome.error }
  const head = quantity(outcome.result)
  return head === null ? { ok: false, error: notAQuantity('eth_blockNumber', outcome.result) } : ok(head)
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
