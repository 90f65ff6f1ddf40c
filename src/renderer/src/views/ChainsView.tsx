import { useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { statusLabel, chainStatuses } from '../../../shared/chains/health'
import type { ChainStatus } from '../../../shared/contract/chains'
import { EmptyState } from '../components/EmptyState'
import { StatusBadge } from '../components/Status'
import { ChainDrawer } from '../components/chains/ChainDrawer'
import { Sparkline, rangeOf } from '../components/chains/Sparkline'

/** The row sparklines are too small for labels: their scale is in the tooltip. */
function scaleNote(values: (number | null)[] | undefined, unit: string): string {
  if (!values || !values.some((v) => v !== null)) return ''
  const { lo, hi } = rangeOf(values)
  return `, range ${Math.round(lo * 10) / 10}–${Math.round(hi * 10) / 10} ${unit}`
}
import { badgeOf, dash, fmtInt, fmtLagBlocks, fmtMs, fmtSeconds } from '../components/chains/format'
import { focusLater, onGridKeyDown } from '../components/grid'
import { excludedSummary } from '../components/chains/sources'
import { StaleNote } from '../components/Liveness'
import { useChainsStore } from '../stores/chains'
import { useStaleSince } from '../stores/link'
import { useFirstLoad, useViewReady } from '../hooks/useViewReady'
import { formatClock } from '../../../shared/time'

function Summary({ chains }: { chains: ChainStatus[] }) {
  const counts = chainStatuses
    .map((s) => ({ s, n: chains.filter((c) => c.status === s).length }))
    .filter((x) => x.n > 0)
  return (
    <span className="chain-summary">
      {counts.map(({ s, n }) => (
        <span key={s}>
          <span className="num">{n}</span> {statusLabel[s]}
        </span>
      ))}
    </span>
  )
}

function Row({
  chain,
  selected,
  tabbable,
  onSelect,
  onFocus,
}: {
  chain: ChainStatus
  selected: boolean
  tabbable: boolean
  onSelect: () => void
  onFocus: () => void
}) {
  const spark = useChainsStore((s) => s.spark[chain.serviceId])
  const badge = badgeOf(chain)
  const excluded = excludedSummary(chain)
  const disagree = chain.corroboration.state === 'disagree'
  const detail = chain.error
    ? chain.error.message
    : chain.status !== 'healthy'
      ? chain.reason
      : disagree
        ? chain.corroboration.note
        : excluded
  const counted = chain.sources.filter((s) => s.state === 'counted').length
  return (
    <tr
      className={selected ? 'selected' : undefined}
      data-status={chain.status}
      data-service-id={chain.serviceId}
      data-grid-row
      tabIndex={tabbable ? 0 : -1}
      aria-selected={selected}
      onClick={onSelect}
      onFocus={onFocus}
    >
      <td className="col-status">
        <StatusBadge tone={badge.tone} label={badge.label} title={chain.reason} />
      </td>
      <td className="col-chain" title={`${chain.name}, slug "${chain.slug}"`}>
        {chain.name}
      </td>
      <td className="num col-head">{fmtInt(chain.head)}</td>
      <td
        className="num"
        title={
          chain.lagEstimated ? 'estimated from block age and block time' : 'behind the corroborated head'
        }
      >
        {fmtLagBlocks(chain)}
      </td>
      <td className="num">{fmtSeconds(chain.lagSeconds)}</td>
      <td className="num">{fmtSeconds(chain.blockAgeSeconds)}</td>
      <td className="num">{fmtMs(chain.latencyMs)}</td>
      <td className="col-spark">
        <Sparkline
          values={(spark ?? []).map((p) => p.lagSeconds)}
          width={60}
          tone="warn"
          label={`${chain.name} lag, last hour${scaleNote(
            spark?.map((p) => p.lagSeconds),
            's',
          )}`}
        />
      </td>
      <td className="col-spark col-spark-latency">
        <Sparkline
          values={(spark ?? []).map((p) => p.latencyMs)}
          width={60}
          label={`${chain.name} latency, last hour${scaleNote(
            spark?.map((p) => p.latencyMs),
            'ms',
          )}`}
        />
      </td>
      <td
        className={`num col-sources${disagree ? ' sources-disagree' : ''}`}
        title={chain.sources
          .map((s) => `${s.name}: ${s.state}${s.reason ? ` (${s.reason})` : ''}`)
          .join('\n')}
      >
        {chain.status === 'not_configured' ? dash : `${counted}/${chain.sources.length}`}
      </td>
      <td className="mono col-client" title={chain.clientVersion ?? undefined}>
        {chain.clientVersion ?? dash}
      </td>
      <td
        className={`col-detail${chain.status === 'healthy' && detail ? ' detail-info' : ''}`}
        title={detail}
      >
        {detail}
      </td>
    </tr>
  )
}

export function ChainsView() {
  const { snapshot, error, selected, load, select } = useChainsStore(
    useShallow((s) => ({
      snapshot: s.snapshot,
      error: s.error,
      selected: s.selected,
      load: s.load,
      select: s.select,
    })),
  )
  const stale = useStaleSince() !== null
  const [focused, setFocused] = useState<number | null>(null)
  useViewReady('chains', useFirstLoad(load))
  const chains = snapshot?.chains ?? []
  const open = chains.find((c) => c.serviceId === selected) ?? null
  const tabbableId = focused ?? selected ?? chains[0]?.serviceId ?? null
  const close = () => {
    select(null)
    if (selected !== null) focusLater(`tr[data-service-id="${selected}"]`)
  }
  const nothingConfigured = chains.length > 0 && chains.every((c) => c.status === 'not_configured')
  return (
    <div className="view chains-view" data-stale={stale || undefined}>
      <header className="view-head">
        <h1>Chains</h1>
        {snapshot && <Summary chains={chains} />}
        <span className="spacer" />
        <StaleNote />
        {snapshot && !stale && (
          <span className="hint num">updated {formatClock(Date.parse(snapshot.at))}</span>
        )}
      </header>
      {error && <p className="banner banner-bad">{error.message}</p>}
      {nothingConfigured && (
        <EmptyState title="No node access configured">
          <p>
            Set <code>rpcBaseUrl</code> in the config and the project uid in the keychain (or{' '}
            <code>WATCHDESK_PROJECT_UID</code>) to watch the head lag of all twelve networks.{' '}
            <code>npm run demo</code> shows them against local nodes.
          </p>
        </EmptyState>
      )}
      <table
        className="grid chains-table"
        role="grid"
        aria-label="Chains"
        onKeyDown={(e) =>
          onGridKeyDown(e, (row) => {
            const id = Number(row.dataset.serviceId)
            select(id === selected ? null : id)
          })
        }
      >
        <thead>
          <tr>
            <th className="col-status">status</th>
            <th className="col-chain">chain</th>
            <th className="num col-head">head</th>
            <th className="num">lag blk</th>
            <th className="num">lag</th>
            <th className="num" title="now minus the head block's timestamp">
              age
            </th>
            <th className="num">latency</th>
            <th className="col-spark">lag 1h</th>
            <th className="col-spark col-spark-latency">latency 1h</th>
            <th className="num col-sources" title="sources counted in the corroborated head / sources">
              sources
            </th>
            <th className="col-client">client</th>
            <th className="col-detail">detail</th>
          </tr>
        </thead>
        <tbody>
          {chains.map((c) => (
            <Row
              key={c.serviceId}
              chain={c}
              selected={c.serviceId === selected}
              tabbable={c.serviceId === tabbableId}
              onSelect={() => select(c.serviceId === selected ? null : c.serviceId)}
              onFocus={() => setFocused(c.serviceId)}
            />
          ))}
        </tbody>
      </table>
      {!snapshot && !error && <p className="hint">Loading…</p>}
      {chains.some((c) => c.lagEstimated && c.lagBlocks !== null) && (
        <p className="hint">
          ~ lag estimated from block age and block time: no reference configured (Settings → Chains →
          references), or none passes its checks (the chain’s Sources).
        </p>
      )}
      {open && <ChainDrawer chain={open} onClose={close} />}
    </div>
  )
}
