import type { ChainStatus, SourceScore } from '../../../../shared/contract/chains'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'
import { dash, fmtInt } from './format'
import { corroborationWords, exclusionWords } from './sources'

/** The chain's sources in the drawer: the service node and every reference, each with its head,
 * its distance to the corroborated head, latency, errors over 15 min, and counted or excluded
 * with the reason in words since when. An excluded reference is information (blue), not an
 * alarm: the chain's own status does not change for it. */
export function SourcesPanel({ chain }: { chain: ChainStatus }) {
  const { corroboration } = chain
  const words = corroborationWords[corroboration.state]
  return (
    <section className="panel" aria-label="Sources">
      <h2>Sources</h2>
      <p className="sources-rule">
        <StatusBadge tone={words.tone} label={words.label} />{' '}
        <span className="hint">
          {corroboration.note} Quorum {corroboration.quorum}; apart by more than{' '}
          <span className="num">{corroboration.disagreeAfterBlocks}</span> blocks is ahead, behind or
          disagreeing.
        </span>
      </p>
      <table className="grid sources-table" aria-label={`${chain.name} sources`}>
        <colgroup>
          <col className="source-name" />
          <col className="source-state" />
          <col className="source-head" />
          <col className="source-distance" />
          <col className="source-latency" />
          <col className="source-errors" />
        </colgroup>
        <thead>
          <tr>
            <th>source</th>
            <th>state</th>
            <th className="num">head</th>
            <th className="num" title="head minus the corroborated head">
              distance
            </th>
            <th className="num">ms</th>
            <th className="num" title="failed (and rate-limited) polls of the polls over 15 min">
              errors
            </th>
          </tr>
        </thead>
        <tbody>
          {chain.sources.map((s) => (
            <SourceRows key={s.name} source={s} />
          ))}
        </tbody>
      </table>
    </section>
  )
}

function SourceRows({ source: s }: { source: SourceScore }) {
  const state = stateOf(s)
  return (
    <>
      <tr data-source={s.name} data-state={s.state} className="source-row">
        <td className="mono" title={s.endpoint ?? undefined}>
          {s.name}
        </td>
        <td>
          <StatusBadge tone={state.tone} label={state.label} />
        </td>
        <td className="num">{fmtInt(s.head)}</td>
        <td className="num">
          {s.distance === null ? dash : s.distance > 0 ? `+${fmtInt(s.distance)}` : fmtInt(s.distance)}
        </td>
        <td className="num">{s.latencyMs === null ? dash : Math.round(s.latencyMs)}</td>
        <td className="num">
          {s.errors + s.rateLimited}/{s.polls}
        </td>
      </tr>
      <tr className="source-detail">
        <td colSpan={6} className="hint">
          {s.state === 'excluded' && s.reason && (
            <span className={`source-why source-why-${state.tone}`}>{exclusionWords[s.reason]}: </span>
          )}
          {s.detail}
          {s.since && s.state !== 'checking'
            ? ` Since ${new Date(s.since).toLocaleTimeString('en-GB')}.`
            : ''}
        </td>
      </tr>
    </>
  )
}

function stateOf(s: SourceScore): { tone: Tone; label: string } {
  if (s.state === 'checking') return { tone: 'muted', label: 'checking' }
  if (s.state === 'counted') return { tone: 'good', label: 'counted' }
  // The service node excluded is the chain's own fault (down, wrong network): said in its status.
  const tone: Tone = s.role === 'service' ? 'bad' : s.reason === 'disagree' ? 'warn' : 'info'
  return { tone, label: 'excluded' }
}
