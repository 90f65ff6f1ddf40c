import { useEffect } from 'react'
import type { ChainStatus } from '../../../../shared/contract/chains'
import { useChainsStore } from '../../stores/chains'
import { StatusBadge } from '../Status'
import { badgeOf, dash, fmtAgeBlocks, fmtInt, fmtLagBlocks, fmtMs, fmtSeconds } from './format'
import { RpcConsole } from './RpcConsole'
import { SourcesPanel } from './SourcesPanel'
import { ScaledSparkline } from './Sparkline'
import { ChainAlertsPanel } from '../alerts/ChainAlertsPanel'
import { ChainHealthFacts, qualityPeriod } from '../alerts/ChainHealthFacts'

const identityWords: Record<
  ChainStatus['identity'],
  { tone: 'good' | 'warn' | 'bad' | 'muted'; label: string }
> = {
  ok: { tone: 'good', label: 'matches the registry' },
  mismatch: { tone: 'bad', label: 'another network' },
  unverified: { tone: 'warn', label: 'cannot be verified' },
  unknown: { tone: 'muted', label: 'not checked yet' },
}

/** One chain in depth: history, identity check, node types and prices, and the RPC console. */
export function ChainDrawer({ chain, onClose }: { chain: ChainStatus; onClose: () => void }) {
  const history = useChainsStore((s) => s.history)
  const info = useChainsStore((s) => s.registry.find((c) => c.serviceId === chain.serviceId))
  const badge = badgeOf(chain)
  const identity = identityWords[chain.identity]
  const points = history?.serviceId === chain.serviceId ? history.points : []
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose()
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [onClose])

  return (
    <aside className="chain-drawer" aria-label={`${chain.name} details`}>
      <header className="chain-drawer-head">
        <h1>{chain.name}</h1>
        <StatusBadge tone={badge.tone} label={badge.label} />
        <span className="spacer" />
        <button onClick={onClose} aria-label="Close">
          Close
        </button>
      </header>
      <p className="hint">{chain.reason}</p>

      <section className="panel">
        <h2>Last hour</h2>
        <div className="chain-charts">
          <div>
            <span className="hint">lag (s){chain.lagEstimated ? ', estimated' : ''}</span>
            <ScaledSparkline
              values={points.map((p) => p.lagSeconds)}
              times={points.map((p) => p.t)}
              unit="s"
              width={360}
              height={48}
              tone="warn"
              label="lag in seconds, last hour"
            />
          </div>
          <div>
            <span className="hint">latency (ms)</span>
            <ScaledSparkline
              values={points.map((p) => p.latencyMs)}
              times={points.map((p) => p.t)}
              unit="ms"
              format={(v) => String(Math.round(v))}
              width={360}
              height={48}
              label="latency in milliseconds, last hour"
            />
          </div>
        </div>
        <dl className="facts facts-tight">
          <dt>Latency p50 / p95 ({qualityPeriod(chain.quality)})</dt>
          <dd className="num">
            {fmtMs(history?.latencyP50Ms ?? null)} / {fmtMs(history?.latencyP95Ms ?? null)}
          </dd>
          <dt>Failed polls (hour)</dt>
          <dd className="num">{history ? history.errorCount : dash}</dd>
        </dl>
      </section>

      <SourcesPanel chain={chain} />
      <ChainHealthFacts chain={chain} />
      <ChainAlertsPanel serviceId={chain.serviceId} name={chain.name} />

      <section className="panel">
        <h2>Head</h2>
        <dl className="facts facts-tight">
          <dt>Head</dt>
          <dd className="num">{fmtInt(chain.head)}</dd>
          <dt>Block age</dt>
          <dd className="num">
            {fmtSeconds(chain.blockAgeSeconds)}
            {chain.blockAgeSeconds === null ? '' : ` · ${fmtAgeBlocks(chain)}`}
            {chain.blockAgeSource === 'advance' ? ' (since the head last advanced)' : ''}
          </dd>
          <dt>Lag</dt>
          <dd className="num">
            {fmtLagBlocks(chain)} blk · {fmtSeconds(chain.lagSeconds)}
            {chain.lagEstimated
              ? ` (estimated: ${chain.corroboration.state === 'disagree' ? 'the sources disagree' : 'no reference passes'})`
              : ` (corroborated head ${fmtInt(chain.referenceHead)})`}
          </dd>
          <dt>Block time</dt>
          <dd className="num">
            {(chain.blockTimeMs / 1000).toFixed(2)} s measured, {((info?.blockTimeMs ?? 0) / 1000).toFixed(2)}{' '}
            s typical
          </dd>
          <dt>Thresholds</dt>
          <dd className="num">
            lagging after {chain.laggingAfterSeconds} s, stalled after {chain.stalledAfterSeconds} s
          </dd>
          <dt>Endpoint</dt>
          <dd className="mono">{chain.endpoint ?? 'not configured'}</dd>
          <dt>Batch requests</dt>
          <dd>
            {chain.batch === 'yes' ? 'accepted' : chain.batch === 'refused' ? 'refused: single calls' : dash}
          </dd>
          {chain.error && (
            <>
              <dt>Last error</dt>
              <dd className="mono">
                {chain.error.kind}
                {chain.error.code !== null ? ` ${chain.error.code}` : ''}: {chain.error.message}
              </dd>
            </>
          )}
        </dl>
      </section>

      <section className="panel">
        <h2>Identity check</h2>
        <p>
          <StatusBadge tone={identity.tone} label={identity.label} />
        </p>
        <table className="grid identity">
          <thead>
            <tr>
              <th>method</th>
              <th>node says</th>
              <th>expected</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <td className="mono">eth_chainId</td>
              <td className="num">{chain.chainId ?? dash}</td>
              <td className="num">{info?.expectedChainId}</td>
            </tr>
            <tr>
              <td className="mono">net_version</td>
              <td className="num">{chain.netVersion ?? dash}</td>
              <td className="num">{info?.expectedNetVersion}</td>
            </tr>
            <tr>
              <td className="mono">web3_clientVersion</td>
              <td className="mono" colSpan={2}>
                {chain.clientVersion ?? dash}
              </td>
            </tr>
          </tbody>
        </table>
        {chain.identityNote && <p className="hint">{chain.identityNote}</p>}
      </section>

      <section className="panel">
        <h2>Network</h2>
        <dl className="facts facts-tight">
          <dt>Service id</dt>
          <dd className="num">{info?.serviceId}</dd>
          <dt>Currency</dt>
          <dd>
            {info?.currency.name} ({info?.currency.symbol})
          </dd>
          <dt>Explorer</dt>
          <dd>
            <a href={info?.explorerUrl} target="_blank" rel="noreferrer">
              {info?.explorerUrl}
            </a>
          </dd>
          <dt>Node types (USD)</dt>
          <dd>
            {info?.nodePrices === null
              ? 'not published by the service'
              : (info?.nodePrices ?? []).map((p) => (
                  <span key={p.type} className="price">
                    {p.type} <span className="num">${p.priceUsd.toLocaleString('en-US')}</span>
                  </span>
                ))}
          </dd>
        </dl>
      </section>

      <RpcConsole
        key={chain.serviceId}
        serviceId={chain.serviceId}
        configured={chain.status !== 'not_configured'}
      />
    </aside>
  )
}
