import type { ChainStatus, RpcErrorInfo, TagLag } from '../../shared/contract/chains'
import { evaluateHealth } from '../../shared/chains/health'
import { notFoundHint } from '../../shared/chains/rpc-errors'
import type { Evaluation } from '../../shared/chains/health'
import { Confirmation } from './confirm'
import { QualityWindow } from './quality'
import { ReorgWatch } from './reorg'
import type { BlockRef } from './reorg'
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
  /** eth_getBlockByNumber("finalized" / "safe"), eth_syncing, net_peerCount; null when the node
   * refused the method before (not asked again). */
  finalized: RpcOutcome | null
  safe: RpcOutcome | null
  syncing: RpcOutcome | null
  peers: RpcOutcome | null
  /** web3_clientVersion, net_version, eth_chainId; null when the identity was not due. */
  identity: RpcOutcome[] | null
  /** The reference node's eth_blockNumber; null without a reference. */
  reference: RpcOutcome | null
  latencyMs: number
}

interface BlockAge {
  head: number
  /** The head block's timestamp (seconds), when the node gave the block. */
  timestamp: number | null
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
  /** Methods the node refused (-32601 and the like): not asked again on this connection. */
  private readonly refused = new Set<'finalized' | 'safe' | 'eth_syncing' | 'net_peerCount'>()
  private readonly confirmation: Confirmation
  private readonly quality = new QualityWindow()
  private readonly reorgs = new ReorgWatch()
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
    this.confirmation = new Confirmation(target.confirmFailures)
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
    this.quality.add(t, 'ok', fetched.latencyMs)
    if (fetched.identity) this.identity = this.checkIdentity(fetched.identity, t)
    const age = this.blockAge(head.value, fetched.block, t)
    await this.watchReorg(this.client, fetched.block, t)
    const lag = this.lag(age, fetched.reference)
    const extras = this.extras(fetched, age, t)
    const evaluation = this.evaluate(age, lag, extras.syncing)
    return this.record(evaluation, age, lag, fetched, extras, t)
  }

  /** Step 3b: a block whose hash changed at a height seen before is a reorganisation; its depth
   * is found by walking back while the old hashes keep differing. */
  private async watchReorg(client: RpcClient, blockOutcome: RpcOutcome | null, t: number): Promise<void> {
    if (!blockOutcome?.ok) return
    const block = blockRef(blockOutcome.result)
    if (!block) return
    await this.reorgs.observe(block, t, async (height) => {
      const exchange = await client.call({ method: 'eth_getBlockByNumber', params: [hex(height), false] })
      return exchange.outcome.ok ? (blockRef(exchange.outcome.result)?.hash ?? null) : null
    })
  }

  /** Step 4b: finalized and safe lag, sync progress and peers, from the same batch. */
  private extras(fetched: Fetched, age: BlockAge, t: number): Extras {
    const headSeconds = age.timestamp ?? t / 1000
    return {
      finalized: this.tagLag('finalized', fetched.finalized, age.head, headSeconds),
      safe: this.tagLag('safe', fetched.safe, age.head, headSeconds),
      syncing: this.readSyncing(fetched.syncing),
      peers: this.readPeers(fetched.peers),
    }
  }

  private tagLag(
    tag: 'finalized' | 'safe',
    outcome: RpcOutcome | null,
    head: number,
    headSeconds: number,
  ): TagLag {
    if (this.refused.has(tag) || this.getBlockRefused) return unsupportedTag
    if (!outcome) return unknownTag
    if (!outcome.ok) {
      if (refusesTag(outcome.error)) {
        this.refused.add(tag)
        return unsupportedTag
      }
      return unknownTag
    }
    const block = outcome.result as { number?: unknown; timestamp?: unknown } | null
    const number = quantity(block?.number)
    const timestamp = quantity(block?.timestamp)
    // A node without the tag may answer null (pre-merge clients).
    if (number === null) {
      this.refused.add(tag)
      return unsupportedTag
    }
    return {
      supported: true,
      head: number,
      lagBlocks: Math.max(0, head - number),
      lagSeconds: timestamp === null ? null : round(Math.max(0, headSeconds - timestamp), 1),
    }
  }

  private readSyncing(outcome: RpcOutcome | null): ChainStatus['syncing'] {
    if (!outcome) return null
    if (!outcome.ok) {
      if (refusesMethod(outcome.error)) this.refused.add('eth_syncing')
      return null
    }
    if (outcome.result === false || outcome.result === null || typeof outcome.result !== 'object') return null
    const progress = outcome.result as { currentBlock?: unknown; highestBlock?: unknown }
    return { currentBlock: quantity(progress.currentBlock), highestBlock: quantity(progress.highestBlock) }
  }

  private readPeers(outcome: RpcOutcome | null): { peers: number | null; note: string | null } {
    if (this.refused.has('net_peerCount'))
      return { peers: null, note: 'net_peerCount is not allowed by this node.' }
    if (!outcome) return { peers: null, note: null }
    if (!outcome.ok) {
      if (refusesMethod(outcome.error)) {
        this.refused.add('net_peerCount')
        return { peers: null, note: 'net_peerCount is not allowed by this node.' }
      }
      return { peers: null, note: outcome.error.message }
    }
    const peers = quantity(outcome.result)
    return peers === null
      ? { peers: null, note: `net_peerCount answered ${JSON.stringify(outcome.result)?.slice(0, 40)}.` }
      : { peers, note: null }
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
    const at = (method: string, params: unknown[], skip: boolean): number | null => {
      if (skip) return null
      calls.push({ method, params })
      return calls.length - 1
    }
    const finalizedAt = at(
      'eth_getBlockByNumber',
      ['finalized', false],
      !askBlock || this.refused.has('finalized'),
    )
    const safeAt = at('eth_getBlockByNumber', ['safe', false], !askBlock || this.refused.has('safe'))
    const syncingAt = at('eth_syncing', [], this.refused.has('eth_syncing'))
    const peersAt = at('net_peerCount', [], this.refused.has('net_peerCount'))
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
    const pick = (i: number | null) => (i === null ? null : main.outcomes[i]!)
    return {
      head: main.outcomes[0]!,
      block: askBlock ? main.outcomes[1]! : null,
      finalized: pick(finalizedAt),
      safe: pick(safeAt),
      syncing: pick(syncingAt),
      peers: pick(peersAt),
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
      timestamp,
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
  private evaluate(age: BlockAge, lag: Lag, syncing: ChainStatus['syncing']): Evaluation {
    const evaluation = evaluateHealth(
      {
        notConfigured: null,
        error: null,
        identityMismatch: this.identity?.mismatch ?? null,
        blockAgeSeconds: age.fromTimestamp ? age.seconds : null,
        sinceHeadAdvancedSeconds: age.sinceAdvancedSeconds,
        referenceLagBlocks: lag.referenceHead !== null ? lag.blocks : null,
        blockTimeMs: this.blockTimeMs,
        syncing,
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
    extras: Extras,
    t: number,
  ): { status: ChainStatus; sample: Sample } {
    const confirmed = this.confirmation.observe(evaluation, t)
    this.latest = {
      ...this.base(t),
      status: confirmed.status,
      reason: confirmed.reason,
      confirming: confirmed.confirming,
      finalized: extras.finalized,
      safe: extras.safe,
      syncing: extras.syncing,
      peers: extras.peers.peers,
      peersNote: extras.peers.note,
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
    return this.report(t, {
      head: age.head,
      ageMs: Math.round(age.seconds * 1000),
      lagBlocks: lag.blocks,
      lagMs: Math.round(lag.seconds * 1000),
      latencyMs: Math.round(fetched.latencyMs),
      error: null,
    })
  }

  private failed(error: RpcErrorInfo, latencyMs: number, t: number): { status: ChainStatus; sample: Sample } {
    this.failures += 1
    // A node that comes back may be another node: ask who it is again.
    this.identity = null
    const previous = this.latest
    const confirmed = this.confirmation.observe(
      {
        status: 'down',
        reason: `${error.message}${this.failures > 1 ? ` (${this.failures} polls in a row)` : ''}${notFoundHint(error, this.target.info.serviceId, this.target.slug, this.target.endpoint?.includes(`/${this.target.slug}/`) ?? false)}`,
      },
      t,
    )
    // Polls of a confirmed outage are the outage's, not the error rate's (that would alert twice
    // for one outage, and again for 15 min after it ended).
    this.quality.add(
      t,
      error.kind === 'http' && error.code === 429
        ? 'rate_limited'
        : confirmed.status === 'down'
          ? 'outage'
          : 'error',
      null,
    )
    this.latest = {
      ...this.base(t),
      ...carried(previous),
      status: confirmed.status,
      reason: confirmed.reason,
      confirming: confirmed.confirming,
      latencyMs: error.kind === 'timeout' || error.kind === 'network' ? null : round(latencyMs, 1),
      error,
      checkedAt: new Date(t).toISOString(),
    }
    return this.report(t, {
      head: null,
      ageMs: null,
      lagBlocks: null,
      lagMs: null,
      latencyMs: this.latest.latencyMs === null ? null : Math.round(this.latest.latencyMs),
      error,
    })
  }

  /** The poll's answer: the status just set, and its history sample with the measured values. */
  private report(
    t: number,
    measured: Omit<Sample, 'serviceId' | 't' | 'status'>,
  ): { status: ChainStatus; sample: Sample } {
    return {
      status: this.latest,
      sample: { serviceId: this.target.info.serviceId, t, status: this.latest.status, ...measured },
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

  private base(
    t: number | null = null,
  ): Pick<
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
    | 'finalizedLagAfterSeconds'
    | 'quality'
    | 'lastReorg'
    | 'reorgs'
  > {
    const { info, thresholds } = this.target
    return {
      finalizedLagAfterSeconds: this.target.finalizedLagAfterSeconds,
      quality: this.quality.summary(t ?? 0, this.target.errorRateAbove, this.target.p95AboveMs),
      lastReorg: this.reorgs.last(),
      reorgs: this.reorgs.count(),
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
      confirming: null,
      finalized: unknownTag,
      safe: unknownTag,
      syncing: null,
      peers: null,
      peersNote: null,
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

/** What a down chain still shows from its last good poll: the head it had reached. Every live
 * figure goes blank rather than show stale values. */
function carried(
  previous: ChainStatus,
): Pick<ChainStatus, 'head' | 'finalized' | 'safe' | 'syncing' | 'peers' | 'peersNote'> & Measurement {
  const blank = (tag: TagLag): TagLag => ({ ...unknownTag, supported: tag.supported })
  return {
    finalized: blank(previous.finalized),
    safe: blank(previous.safe),
    syncing: null,
    peers: null,
    peersNote: previous.peersNote,
    head: previous.head,
    ...noMeasurement,
  }
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

interface Extras {
  finalized: TagLag
  safe: TagLag
  syncing: ChainStatus['syncing']
  peers: { peers: number | null; note: string | null }
}

const unknownTag: TagLag = { supported: null, head: null, lagBlocks: null, lagSeconds: null }
const unsupportedTag: TagLag = { supported: false, head: null, lagBlocks: null, lagSeconds: null }

const hex = (n: number) => `0x${n.toString(16)}`

function blockRef(result: unknown): BlockRef | null {
  const block = result as { number?: unknown; hash?: unknown; parentHash?: unknown } | null
  const number = quantity(block?.number)
  if (number === null || typeof block?.hash !== 'string') return null
  return {
    number,
    hash: block.hash,
    parentHash: typeof block.parentHash === 'string' ? block.parentHash : null,
  }
}

/** A node that does not know the "finalized" / "safe" tags answers invalid params or unknown block. */
function refusesTag(error: RpcErrorInfo): boolean {
  return (
    refusesMethod(error) ||
    (error.kind === 'rpc' && (error.code === -32602 || error.code === -39001)) ||
    /unknown block|invalid (block|tag)|finalized|safe block/i.test(error.message)
  )
}

function refusesMethod(error: RpcErrorInfo): boolean {
  return (
    (error.kind === 'rpc' && error.code === -32601) ||
    /method not found|not supported|not allowed|not available|unsupported/i.test(error.message)
  )
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits
