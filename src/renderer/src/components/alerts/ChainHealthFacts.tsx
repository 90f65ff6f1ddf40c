import type { ChainStatus, TagLag } from '../../../../shared/contract/chains'
import { dash, fmtSeconds } from '../chains/format'
import { qualityWindowMs } from '../../../../shared/chains/health'
import { formatSpan } from '../../../../shared/alerts/uptime'

const tag = (t: TagLag) =>
  t.supported === false
    ? 'not supported by this node'
    : t.lagBlocks === null
      ? dash
      : `${t.lagBlocks.toLocaleString('en-US')} blocks · ${fmtSeconds(t.lagSeconds)}`

/** Health beyond the head: finality, sync, peers, 15-minute quality, reorganisations. */
export function ChainHealthFacts({ chain }: { chain: ChainStatus }) {
  const q = chain.quality
  // The window is 15 minutes once full; until then the figures cover only the polls so far.
  const period = q.coveredMs >= qualityWindowMs ? '15 min' : `last ${formatSpan(q.coveredMs)}`
  return (
    <section className="panel">
      <h2>Beyond the head</h2>
      <dl className="facts facts-tight">
        <dt>Finalized lag</dt>
        <dd className="num">
          {tag(chain.finalized)}{' '}
          <span className="dim">(alert after {fmtSeconds(chain.finalizedLagAfterSeconds)})</span>
        </dd>
        <dt>Safe lag</dt>
        <dd className="num">{tag(chain.safe)}</dd>
        <dt>Syncing</dt>
        <dd className="num">
          {chain.syncing
            ? `block ${chain.syncing.currentBlock ?? '?'} of ${chain.syncing.highestBlock ?? '?'}`
            : 'no'}
        </dd>
        <dt>Peers</dt>
        <dd className="num">{chain.peers ?? chain.peersNote ?? dash}</dd>
        <dt>Errors ({period})</dt>
        <dd className="num">
          {q.errorRate === null
            ? dash
            : `${q.errors} of ${q.polls} polls (${(q.errorRate * 100).toFixed(1)} %)`}
          {q.rateLimited > 0 ? ` · ${q.rateLimited} rate limited` : ''}{' '}
          <span className="dim">(alert above {(q.errorRateAbove * 100).toFixed(0)} %)</span>
        </dd>
        <dt>Latency p95 ({period})</dt>
        <dd className="num">
          {q.p95Ms === null ? dash : `${Math.round(q.p95Ms)} ms · ${q.slow} slow`}{' '}
          <span className="dim">(alert above {q.p95AboveMs} ms)</span>
        </dd>
        <dt>Reorganisations</dt>
        <dd className="num">
          {chain.reorgs === 0 || !chain.lastReorg
            ? 'none seen'
            : `${chain.reorgs}; last ${chain.lastReorg.depth} deep at ${chain.lastReorg.height.toLocaleString('en-US')}${reorgSeen[String(chain.lastReorg.seenByReferences)]}`}
        </dd>
      </dl>
    </section>
  )
}

/** Whether the references hold the service node's new block (null: none could be asked). */
const reorgSeen: Record<string, string> = {
  true: ', seen by the references',
  false: ', not seen by the references: the service node’s own fork',
  null: '',
}
