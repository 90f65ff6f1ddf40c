import type { ChainStatus, Corroboration, RpcErrorInfo } from '../../shared/contract/chains'
import { evaluateHealth } from '../../shared/chains/health'
import type { Evaluation } from '../../shared/chains/health'
import { Confirmation } from './confirm'
import { QualityWindow } from './quality'
import { createRpcClient } from './rpc'
import type { RpcClient } from './rpc'
import type { ChainTarget } from './targets'
import { fetchPoll, planPoll } from './poll'
import type { Fetched } from './poll'
import { corroborate } from './checks/corroborate'
import type { CorroboratedView } from './checks/corroborate'
import { ExtrasCheck, extrasPaceMs, unknownTag } from './checks/extras'
import type { Extras } from './checks/extras'
import { HeadAge, headFromBlock } from './checks/head-age'
import { AgeThresholds } from './checks/age-thresholds'
import type { Thresholds } from '../../shared/chains/health'
import { lagOf } from './checks/lag'
import type { Lag } from './checks/lag'
import type { BlockAge } from './checks/head-age'
import { IdentityCheck } from './checks/identity'
import { ReferenceSource } from './checks/reference'
import { ReorgCheck } from './checks/reorg-check'
import { SourceScores } from './checks/scores'
import type { ServiceSide } from './checks/scores'
import { carried, noMeasurement, uncorroborated } from './status'
import { isRateLimited, readHead, round } from './values'
import { noTimeReferences } from '../../shared/time-references'
import type { TimeReferences } from '../../shared/time-references'

/** One chain's monitor: a poll (poll.ts) and small checks over its result, one concern each
 * (checks/: identity, head age, reorgs, extras, references and corroboration, scores). Keeps
 * what the checks need between polls; no timers here. */

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

type PollResult = { status: ChainStatus; sample: Sample | null }

/** What a reconfigured chain keeps from the monitor it replaces (poller.reconfigure): its place
 * in the debounce and the 15 min windows always; the node's own readings (identity, head age,
 * reorgs, extras, failures in a row) only while it still polls the same URL; the connection only
 * while URL, time-out and scrubber are the same. */
interface Carried {
  previous: ChainMonitor
  sameNode: boolean
  sameClient: boolean
}

function carriedFrom(
  previous: ChainMonitor | undefined,
  target: ChainTarget,
  scrub: (text: string) => string,
  polled: boolean,
): Carried | null {
  if (!previous?.polled || !polled) return null
  const sameNode = previous.target.url === target.url
  const sameClient = sameNode && previous.target.timeoutMs === target.timeoutMs && previous.scrub === scrub
  return { previous, sameNode, sameClient }
}

const waitingNote = / \(now polling [^]*: waiting for its first answer\)$/

/** A reference's connection is kept while everything it was built from is the same. */
const referenceKey = (r: ChainTarget['references'][number], target: ChainTarget) =>
  JSON.stringify([r, target.timeoutMs, target.info.expectedChainId, target.thresholds.stalledAfterSeconds])

export class ChainMonitor {
  readonly target: ChainTarget
  readonly scrub: (text: string) => string
  private readonly client: RpcClient | null
  /** Where block stamps and the gateway's Date go, and the clock correction comes from. */
  readonly timeRefs: TimeReferences
  private readonly references: ReferenceSource[]
  private readonly referenceKeys: string[]
  private readonly identity: IdentityCheck
  private readonly headAge: HeadAge
  private readonly extras: ExtrasCheck
  private readonly reorgs: ReorgCheck
  private readonly scores: SourceScores
  private readonly confirmation: Confirmation
  private readonly quality: QualityWindow
  private readonly ageThresholds: AgeThresholds
  /** The thresholds of the last evaluation: the configured ones raised by the measured ages. */
  private thresholds: Thresholds
  failures = 0
  private latest: ChainStatus
  /** When the current run of failed or late polls began; null while well. */
  private troubleSince: number | null = null
  /** Failed polls of a run not (yet) confirmed as an outage: counted in the error rate only once
   * the run ends without becoming one, so one outage never also raises "error rate". */
  private unconfirmedErrors: number[] = []

  /** `previous`: the monitor of the same chain before a config change; its state is carried over
   * (see Carried) so a change of settings is never taken for a recovery or a new outage. */
  constructor(
    target: ChainTarget,
    scrub: (text: string) => string,
    previous?: ChainMonitor,
    timeRefs?: TimeReferences,
  ) {
    this.target = target
    this.scrub = scrub
    this.timeRefs = timeRefs ?? previous?.timeRefs ?? noTimeReferences
    const polled = target.url !== null && target.notConfigured === null
    const carried = carriedFrom(previous, target, scrub, polled)
    const node = carried?.sameNode ? carried.previous : null
    this.client = !polled
      ? null
      : carried?.sameClient
        ? carried.previous.client
        : createRpcClient({
            url: target.url!,
            timeoutMs: target.timeoutMs,
            scrub,
            onDate: (localMs, date) =>
              this.timeRefs.observe({ kind: 'http_date', source: 'rpc', localMs, date }),
          })
    this.referenceKeys = polled ? target.references.map((r) => referenceKey(r, target)) : []
    this.references = polled
      ? target.references.map((r, i) => {
          const kept = carried?.previous.referenceKeys.indexOf(this.referenceKeys[i]!) ?? -1
          if (kept >= 0 && carried?.previous.scrub === scrub) return carried.previous.references[kept]!
          return new ReferenceSource(
            r,
            target.timeoutMs,
            target.info.expectedChainId,
            target.thresholds.stalledAfterSeconds,
            scrub,
          )
        })
      : []
    this.identity = node?.identity ?? new IdentityCheck(target)
    this.headAge = node?.headAge ?? new HeadAge(target.info.blockTimeMs)
    const pace = Math.max(extrasPaceMs, target.intervalMs)
    this.extras = node && node.target.intervalMs === target.intervalMs ? node.extras : new ExtrasCheck(pace)
    this.reorgs = node?.reorgs ?? new ReorgCheck()
    this.scores = carried?.previous.scores ?? new SourceScores()
    this.quality = carried?.previous.quality ?? new QualityWindow()
    // The chain's block ages and its run of trouble are the chain's, whichever node is polled.
    this.ageThresholds = carried?.previous.ageThresholds ?? new AgeThresholds()
    this.thresholds = target.thresholds
    this.troubleSince = carried?.previous.troubleSince ?? null
    this.unconfirmedErrors = carried ? [...carried.previous.unconfirmedErrors] : []
    this.confirmation = carried
      ? carried.previous.confirmation.withNeeded(target.confirmFailures)
      : new Confirmation(target.confirmFailures)
    this.failures = node?.failures ?? 0
    this.latest = carried ? this.carriedStatus(carried) : this.initialStatus()
  }

  /** Closes what `successor` did not take over (its own client, references it does not share). */
  closeExcept(successor: ChainMonitor): void {
    if (this.client !== successor.client) this.client?.close()
    for (const r of this.references) if (!successor.references.includes(r)) r.close()
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
    for (const r of this.references) r.close()
  }

  /** One poll, in the order of its steps: fetch (service batch and references at once), read the
   * references, check the identity, measure the block age, corroborate the head, watch for
   * reorgs, measure the lag, read the extras, evaluate health, record the status and sample. */
  async poll(now: () => number = Date.now): Promise<PollResult> {
    if (!this.client) return { status: this.latest, sample: null }
    const started = now()
    const plan = planPoll(
      started,
      { refused: this.headAge.getBlockRefused, answersHead: this.headAge.blockAnswersHead },
      this.extras,
      this.identity.due(started),
    )
    const fetched = await fetchPoll(this.client, plan, this.references, started)
    const t = now()
    this.references.forEach((r, i) => r.observe(fetched.references[i]!, t))
    const head = fetched.head ? readHead(fetched.head) : headFromBlock(fetched.block)
    if (!head.ok) return this.failed(head.error, fetched.latencyMs, t)
    this.failures = 0
    for (const at of this.unconfirmedErrors.splice(0)) this.quality.add(at, 'error', null)
    this.quality.add(t, 'ok', fetched.latencyMs)
    if (fetched.identity) this.identity.observe(fetched.identity, t)
    const age = this.headAge.observe(head.value, fetched.block, t, this.timeRefs.correctionMs())
    if (age.timestamp !== null) this.reportStamp(age.timestamp, t)
    const mismatch = this.identity.current?.mismatch ?? null
    const view = this.corroborate(mismatch ? null : age.head)
    const counted = this.references.filter((r) => view.verdicts.get(r.name)?.counted)
    await this.reorgs.observe(this.client, fetched.block, counted, t)
    const lag = lagOf(age, view, this.headAge.blockTimeMs)
    const answers = this.extras.answers(plan.extras.calls, fetched.extras)
    const extras = this.extras.read(answers, plan.extras.slow, age, this.headAge.getBlockRefused, t)
    const evaluation = this.evaluate(age, lag, extras.syncing)
    return this.record(evaluation, age, lag, view, fetched, extras, t)
  }

  /** The head block's stamp against this machine's (uncorrected) clock, for the clock guard. */
  private reportStamp(blockTimestamp: number, t: number): void {
    this.timeRefs.observe({
      kind: 'block',
      serviceId: this.target.info.serviceId,
      localMs: t,
      blockTimestamp,
      blockTimeMs: this.headAge.blockTimeMs,
    })
  }

  private corroborate(serviceHead: number | null): CorroboratedView {
    const { quorum, disagreeAfterBlocks } = this.target
    return corroborate(
      serviceHead,
      this.references.map((r) => r.latest),
      quorum,
      disagreeAfterBlocks,
    )
  }

  /** The status and its reason, from the shared health rules, with this chain's own thresholds. */
  private evaluate(age: BlockAge, lag: Lag, syncing: ChainStatus['syncing']): Evaluation {
    this.thresholds = this.ageThresholds.current(this.target.thresholds)
    const evaluation = evaluateHealth(
      {
        notConfigured: null,
        error: null,
        identityMismatch: this.identity.current?.mismatch ?? null,
        blockAgeSeconds: age.fromTimestamp ? age.seconds : null,
        sinceHeadAdvancedSeconds: age.sinceAdvancedSeconds,
        referenceLagBlocks: lag.referenceHead !== null ? lag.blocks : null,
        blockTimeMs: this.headAge.blockTimeMs,
        syncing,
        head: age.head,
        referencesNotAhead: this.referencesNotAhead(age.head),
      },
      this.thresholds,
    )
    const late = ['lagging', 'stalled', 'halted'].includes(evaluation.status)
    this.ageThresholds.observe(age.seconds, late)
    return evaluation
  }

  /** How many references answering this network stand at or below the node's head (a stalled
   * one counts: it is what a halted chain looks like); null when none answers or one is ahead,
   * i.e. when the chain may have moved on without the node. */
  private referencesNotAhead(head: number): number | null {
    if (this.identity.current?.mismatch) return null
    const answering = this.references
      .map((r) => r.latest)
      .filter((r) => r.head !== null && (r.excluded === null || r.excluded.reason === 'stalled'))
    if (answering.length === 0 || answering.some((r) => r.head! > head)) return null
    return answering.length
  }

  /** The status the UI shows and the sample history stores. */
  private record(
    evaluation: Evaluation,
    age: BlockAge,
    lag: Lag,
    view: CorroboratedView,
    fetched: Fetched,
    extras: Extras,
    t: number,
  ): PollResult {
    const confirmed = this.confirmation.observe(evaluation, t)
    const mismatch = this.identity.current?.mismatch ?? null
    this.latest = {
      ...this.base(t),
      troubleSince: this.troubleAt(confirmed.status, t),
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
      blockTimeMs: Math.round(this.headAge.blockTimeMs),
      lagBlocks: lag.blocks,
      lagSeconds: round(lag.seconds, 1),
      lagEstimated: lag.referenceHead === null,
      referenceHead: lag.referenceHead,
      ...this.sourcesOf(
        {
          head: age.head,
          latencyMs: fetched.latencyMs,
          excluded: mismatch ? { reason: 'wrong_chain', detail: mismatch } : null,
        },
        view,
        t,
      ),
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

  private failed(error: RpcErrorInfo, latencyMs: number, t: number): PollResult {
    this.failures += 1
    this.identity.forget()
    this.extras.reset()
    this.headAge.blockAnswersHead = false
    const previous = this.latest
    const message =
      error.kind === 'http' && error.code === 404 ? `${error.message}${this.slugHint()}` : error.message
    const confirmed = this.confirmation.observe(
      {
        status: 'down',
        reason: `${message}${this.failures > 1 ? ` (${this.failures} polls in a row)` : ''}`,
      },
      t,
    )
    // Polls of a confirmed outage are the outage's, not the error rate's (that would alert twice
    // for one outage, and again for 15 min after it ended): the failed polls before the
    // confirmation wait, and go to the error rate only if the run ends unconfirmed.
    if (isRateLimited(error)) this.quality.add(t, 'rate_limited', null)
    else if (confirmed.status === 'failing') this.unconfirmedErrors.push(t)
    else this.unconfirmedErrors = []
    const shownError = message === error.message ? error : { ...error, message }
    this.latest = {
      ...this.base(t),
      ...carried(previous),
      troubleSince: this.troubleAt(confirmed.status, t),
      ...this.sourcesOf(
        {
          head: null,
          latencyMs: null,
          excluded: { reason: isRateLimited(error) ? 'rate_limited' : 'errors', detail: message },
        },
        this.corroborate(null),
        t,
      ),
      status: confirmed.status,
      reason: confirmed.reason,
      confirming: confirmed.confirming,
      latencyMs: error.kind === 'timeout' || error.kind === 'network' ? null : round(latencyMs, 1),
      error: shownError,
      checkedAt: new Date(t).toISOString(),
    }
    return this.report(t, {
      head: null,
      ageMs: null,
      lagBlocks: null,
      lagMs: null,
      latencyMs: this.latest.latencyMs === null ? null : Math.round(this.latest.latencyMs),
      error: shownError,
    })
  }

  /** The start of the current run of failed or late polls, moved on by this poll's status. */
  private troubleAt(status: ChainStatus['status'], t: number): number | null {
    const well = status === 'healthy' || status === 'checking' || status === 'not_configured'
    this.troubleSince = well ? null : (this.troubleSince ?? t)
    return this.troubleSince
  }

  /** A 404 on the chain's path most often means the service knows the network by another slug. */
  private slugHint(): string {
    const { info, slug } = this.target
    return ` — nothing at the path "/${slug}/…": if the service names this network otherwise, set chains.${info.serviceId}.slug.`
  }

  private sourcesOf(
    service: Pick<ServiceSide, 'head' | 'latencyMs' | 'excluded'>,
    view: CorroboratedView,
    t: number,
  ): Pick<ChainStatus, 'sources' | 'corroboration'> {
    const sources = this.scores.score(
      {
        ...service,
        endpoint: this.target.endpoint,
        chainId: this.identity.current?.chainId ?? null,
        counts: this.quality.counts15(t),
      },
      this.references,
      view,
      t,
    )
    const corroboration: Corroboration = {
      state: view.state,
      head: view.head,
      quorum: view.quorum,
      counted: view.counted,
      sources: this.references.length + 1,
      disagreeAfterBlocks: this.target.disagreeAfterBlocks,
      note: view.note,
    }
    return { sources, corroboration }
  }

  /** The poll's answer: the status just set, and its history sample with the measured values. */
  private report(t: number, measured: Omit<Sample, 'serviceId' | 't' | 'status'>): PollResult {
    return {
      status: this.latest,
      sample: { serviceId: this.target.info.serviceId, t, status: this.latest.status, ...measured },
    }
  }

  private base(t: number | null = null) {
    const { info } = this.target
    const id = this.identity.current
    return {
      finalizedLagAfterSeconds: this.target.finalizedLagAfterSeconds,
      quality: this.quality.summary(t ?? 0, this.target.errorRateAbove, this.target.p95AboveMs),
      lastReorg: this.reorgs.watch.last(),
      reorgs: this.reorgs.watch.count(),
      serviceId: info.serviceId,
      name: info.name,
      slug: this.target.slug,
      enabled: this.target.enabled,
      endpoint: this.target.endpoint,
      clientVersion: id?.clientVersion ?? null,
      netVersion: id?.netVersion ?? null,
      chainId: id?.chainId ?? null,
      identity: id?.verdict ?? 'unknown',
      identityNote: id?.mismatch ?? id?.note ?? null,
      batch: this.client?.batchSupport() ?? 'unknown',
      laggingAfterSeconds: Math.round(this.thresholds.laggingAfterSeconds),
      stalledAfterSeconds: Math.round(this.thresholds.stalledAfterSeconds),
      blockTimeMs: Math.round(this.headAge.blockTimeMs),
    } satisfies Partial<ChainStatus>
  }

  /** The status before the change, with this config's settings: the chain stays as bad (or as
   * good) as its last polls said until a poll of what it is now configured to poll says otherwise. */
  private carriedStatus({ previous, sameNode }: Carried): ChainStatus {
    const before = previous.latest
    const t = before.checkedAt === null ? 0 : Date.parse(before.checkedAt)
    const status = { ...before, ...this.base(t) }
    if (sameNode) return status
    const reason = before.reason.replace(waitingNote, '')
    return {
      ...status,
      reason: `${reason} (now polling ${this.target.endpoint}: waiting for its first answer)`,
    }
  }

  private initialStatus(): ChainStatus {
    const { references, quorum, disagreeAfterBlocks } = this.target
    return {
      ...this.base(),
      status: this.target.notConfigured !== null ? 'not_configured' : 'checking',
      reason: this.target.notConfigured ?? 'Waiting for the first poll.',
      confirming: null,
      troubleSince: null,
      finalized: unknownTag,
      safe: unknownTag,
      syncing: null,
      peers: null,
      peersNote: null,
      head: null,
      ...noMeasurement,
      sources: this.scores.score(
        {
          endpoint: this.target.endpoint,
          head: null,
          latencyMs: null,
          chainId: null,
          counts: { polls: 0, errors: 0, rateLimited: 0 },
          excluded: null,
        },
        this.references,
        null,
        0,
      ),
      corroboration: uncorroborated(
        references.length,
        quorum,
        disagreeAfterBlocks,
        references.length === 0 ? 'No reference is configured.' : 'Waiting for the first poll.',
      ),
      latencyMs: null,
      error: null,
      checkedAt: null,
    }
  }
}
