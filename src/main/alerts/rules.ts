import { statusLabel } from '../../shared/chains/health'
import type { AlertSeverity, RuleInfo } from '../../shared/contract/alerts'
import type { ChainStatus, ChainsSnapshot } from '../../shared/contract/chains'
import { engineConfirm } from '../contribution'
import type { Condition } from '../contribution'

/** Every rule, its default and its severity (docs/alerts.md lists the same). */
export const ruleCatalog = [
  {
    id: 'chain.down',
    label: 'Chain down',
    severity: 'critical',
    defaultText: `no answer for ${'`chains.<id>.confirmFailures`'} polls (3) and 15 s`,
  },
  {
    id: 'chain.stalled',
    label: 'Chain stalled',
    severity: 'critical',
    defaultText: 'head not advancing past `stalledAfterSeconds` (20 blocks, ≥ 60 s), confirmed like down',
  },
  {
    id: 'chain.halted',
    label: 'Chain halted',
    severity: 'warning',
    defaultText:
      'the node and every reference that answers stand at one old height past `stalledAfterSeconds` (raised for chains whose blocks follow demand): "halted or all sources stuck — not your node", never lagging; for 3 polls and 15 s',
  },
  {
    id: 'chain.wrong_network',
    label: 'Wrong network',
    severity: 'critical',
    defaultText: 'eth_chainId / net_version not the chain’s, confirmed like down',
  },
  {
    id: 'chain.lagging',
    label: 'Chain lagging',
    severity: 'warning',
    defaultText: 'behind past `laggingAfterSeconds` (5 blocks, ≥ 10 s) for 3 polls and 15 s',
  },
  {
    id: 'chain.syncing',
    label: 'Node syncing',
    severity: 'warning',
    defaultText: 'eth_syncing answers progress for 3 polls and 15 s',
  },
  {
    id: 'chain.finality',
    label: 'Finality lag',
    severity: 'warning',
    defaultText:
      'finalized head older than `finalizedLagAfterSeconds` (from the chain: Ethereum 20 min, rollups 60 min, Polygon 10 min, others 100 blocks ≥ 5 min)',
  },
  {
    id: 'chain.error_rate',
    label: 'Error rate',
    severity: 'warning',
    defaultText:
      'failed polls above `errorRateAbove` (5 %) over 15 min, with at least `alerts.minFailures` (3) failed polls and 10 polls; HTTP 429 counted apart; starts at the first failed poll',
  },
  {
    id: 'chain.latency',
    label: 'Slow node',
    severity: 'warning',
    defaultText:
      'p95 latency above `p95AboveMs` (1 s) over 15 min, with at least `alerts.minFailures` (3) slower answers and 10 answers; starts at the first slow answer',
  },
  {
    id: 'chain.sources_disagree',
    label: 'Sources disagree',
    severity: 'warning',
    defaultText:
      'the service node and the references answer heads further apart than `disagreeAfterBlocks` (a stall’s worth of blocks), no two agreeing, for 3 polls and 15 s',
  },
  {
    id: 'chain.reorg',
    label: 'Reorganisation',
    severity: 'info',
    defaultText: 'the block at a known height changed hash (depth recorded)',
  },
  {
    id: 'event.type',
    label: 'Event type',
    severity: 'critical',
    defaultText:
      '`alerts.eventTypes`: *.failed, compliance.screening.flagged, business.verification.rejected',
  },
  {
    id: 'listener.rejections',
    label: 'Signature rejections',
    severity: 'critical',
    defaultText: 'more than `alerts.rejectionsPerMinute` (10) signature rejections in a minute',
  },
  {
    id: 'webhook.replay_suspected',
    label: 'Suspected replay',
    severity: 'critical',
    defaultText:
      'a stored event id arrived again at a time no retry explains (after a 200), or with a `created_at` older than the whole retry ladder; once per id, naming the address (`replay.toleranceSeconds`)',
  },
  {
    id: 'listener.quiet',
    label: 'No events',
    severity: 'warning',
    defaultText: 'off; `alerts.quietMinutes.<endpoint id or *>` minutes without an event',
  },
  {
    id: 'listener.down',
    label: 'Listener not listening',
    severity: 'critical',
    defaultText: 'the webhook listener is not running',
  },
  {
    id: 'storage.fault',
    label: 'Storage fault',
    severity: 'critical',
    defaultText: 'the database does not take commits (disk full, locked)',
  },
  {
    id: 'relay.source',
    label: 'Relay source unreachable',
    severity: 'critical',
    defaultText: 'a `sources.<name>` relay unreachable or refusing the token for 3 checks and 15 s',
  },
  {
    id: 'forward.gone',
    label: 'Forward target gone',
    severity: 'critical',
    defaultText: 'a `forward.targets.<name>` target answered 410 Gone: forwarding to it stopped',
  },
  {
    id: 'forward.worker',
    label: 'Forward worker crash loop',
    severity: 'critical',
    defaultText: 'the forward worker restarted more than 3 times in a minute: nothing is forwarded',
  },
  {
    id: 'webhook.shape_changed',
    label: 'Payload shape changed',
    severity: 'warning',
    defaultText:
      'an event added, removed or retyped a field of its type’s `data` (after `drift.learnEvents` (10) events); one per type and change, until acknowledged in `drift.acknowledged`',
  },
  {
    id: 'endpoint.disable_risk',
    label: 'Endpoint disablement risk',
    severity: 'warning',
    defaultText:
      'the listener unreachable (public URL failing, not listening) so long that the outage’s first deliveries use their 5th retry within `alerts.disablementLeadMinutes` (120)',
  },
  {
    id: 'endpoint.deliveries_failed',
    label: 'Deliveries marked failed',
    severity: 'critical',
    defaultText:
      'deliveries used all 6 attempts (26 h 36 min) while the listener was unreachable: marked failed, the endpoint may be disabled; with the payments API’s status of it',
  },
] as const satisfies readonly Omit<RuleInfo, 'enabled'>[]

export type RuleId = (typeof ruleCatalog)[number]['id']
export const severityOf = (rule: string): AlertSeverity =>
  ruleCatalog.find((r) => r.id === rule)?.severity ?? 'warning'

export { engineConfirm } from '../contribution'
export type { Condition } from '../contribution'
const minQualityPolls = 10

/** The chain rules over one round of statuses. Down, stalled and wrong network arrive confirmed
 * by the poller (failing n/N before); the others are confirmed here. */
export function chainConditions(snapshot: ChainsSnapshot, minFailures = 3): Condition[] {
  const out: Condition[] = []
  for (const c of snapshot.chains) {
    const live = c.status !== 'not_configured' && c.status !== 'checking'
    const at = c.checkedAt ? Date.parse(c.checkedAt) : undefined
    const add = (
      rule: RuleId,
      active: boolean,
      title: string,
      body: string,
      confirm?: Condition['confirm'],
      since?: number | null,
    ) =>
      out.push({
        rule,
        subject: `chain:${c.serviceId}`,
        serviceId: c.serviceId,
        active: live && active,
        title,
        body,
        name: c.name,
        confirm,
        since,
        at,
      })
    // The statuses start at the run's first failed or late poll, not at their confirmation.
    for (const s of ['down', 'stalled', 'wrong_network'] as const)
      add(`chain.${s}`, c.status === s, `${c.name} ${statusLabel[s]}`, c.reason, undefined, c.troubleSince)
    add('chain.lagging', c.status === 'lagging', `${c.name} lagging`, c.reason, engineConfirm, c.troubleSince)
    add(
      'chain.halted',
      c.status === 'halted',
      `${c.name} halted or all sources stuck — not your node`,
      c.reason,
      engineConfirm,
      c.troubleSince,
    )
    add('chain.syncing', c.status === 'syncing', `${c.name} syncing`, c.reason, engineConfirm, c.troubleSince)
    add(
      'chain.sources_disagree',
      c.corroboration.state === 'disagree',
      `${c.name} sources disagree`,
      c.corroboration.note,
      engineConfirm,
    )
    const fin = c.finalized.lagSeconds
    add(
      'chain.finality',
      fin !== null && fin > c.finalizedLagAfterSeconds,
      `${c.name} finality lag`,
      `The finalized block is ${fin ?? '?'} s (${c.finalized.lagBlocks ?? '?'} blocks) behind the head; the limit is ${c.finalizedLagAfterSeconds} s (chains.${c.serviceId}.finalizedLagAfterSeconds).`,
      engineConfirm,
    )
    // Both need evidence: enough polls, at least minFailures failures (slow answers), and the rate
    // (p95) above the limit; one failed poll among the first ten is 10 % but no incident.
    const q = c.quality
    add(
      'chain.error_rate',
      q.polls >= minQualityPolls &&
        q.errors >= minFailures &&
        q.errorRate !== null &&
        q.errorRate > q.errorRateAbove,
      `${c.name} error rate`,
      `${q.errors} of ${q.polls} polls failed over 15 min (${pct(q.errorRate)}; limit ${pct(q.errorRateAbove)} and ${minFailures} failures)${rateLimitedNote(c)}.`,
      undefined,
      q.firstErrorAt,
    )
    add(
      'chain.latency',
      q.polls - q.errors - q.rateLimited >= minQualityPolls &&
        q.slow >= minFailures &&
        q.p95Ms !== null &&
        q.p95Ms > q.p95AboveMs,
      `${c.name} slow`,
      `p95 latency ${Math.round(q.p95Ms ?? 0)} ms over 15 min (limit ${q.p95AboveMs} ms); ${q.slow} answers slower than the limit (at least ${minFailures} needed).`,
      undefined,
      q.firstSlowAt,
    )
  }
  return out
}

const pct = (r: number | null) => (r === null ? '—' : `${Math.round(r * 1000) / 10} %`)
const rateLimitedNote = (c: ChainStatus) =>
  c.quality.rateLimited > 0 ? `; ${c.quality.rateLimited} more were rate limited (HTTP 429)` : ''
