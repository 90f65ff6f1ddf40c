import { useEffect } from 'react'
import type { ChainStatus } from '../../../../shared/contract/chains'
import { glance, lagTone } from '../../../../shared/glance'
import { linkHash } from '../../../../shared/links'
import { useChainsStore } from '../../stores/chains'
import { StatusBadge } from '../Status'
import { StaleNote } from '../Liveness'
import { useStaleSince } from '../../stores/link'
import { badgeOf, dash, fmtLagBlocks, fmtSeconds } from './format'

/** The twelve chains (Overview), in the registry's fixed order so nothing jumps: each its status
 * and head lag in blocks and seconds, coloured against its own thresholds. A cell opens the chain
 * in the Chains view. */
export function ChainStrip() {
  const snapshot = useChainsStore((s) => s.snapshot)
  const load = useChainsStore((s) => s.load)
  const registry = useChainsStore((s) => s.registry)
  const stale = useStaleSince() !== null
  useEffect(() => {
    void load()
  }, [load])
  const byId = new Map(snapshot?.chains.map((c) => [c.serviceId, c]))
  const summary = snapshot
    ? glance({ chains: snapshot.chains, openIncidents: null, eventsPerMinute: null })
    : null
  return (
    <section className="panel chain-strip-panel" aria-label="Chains" data-stale={stale || undefined}>
      <div className="chain-strip-head">
        <h2>
          <a href="#/chains" title="open Chains">
            Chains
          </a>
        </h2>
        {summary && <span className="hint">{summary.line}</span>}
        <StaleNote />
        <span className="hint chain-strip-legend">head lag: blocks · seconds</span>
      </div>
      <ul className="chain-strip">
        {registry.map((info) => {
          const chain = byId.get(info.serviceId)
          const badge = chain ? badgeOf(chain) : { tone: 'muted' as const, label: 'loading' }
          return (
            <li key={info.serviceId} className="chain-strip-cell" data-status={chain?.status ?? 'loading'}>
              <a
                href={linkHash({ view: 'chains', serviceId: info.serviceId })}
                title={chain ? `${info.name}: ${badge.label}. ${chain.reason}` : info.name}
              >
                <span className="chain-strip-name">{info.name}</span>
                <StatusBadge tone={badge.tone} label={badge.label} />
                {chain ? <ChainLag chain={chain} /> : <span className="chain-lag">{dash}</span>}
              </a>
            </li>
          )
        })}
      </ul>
    </section>
  )
}

function ChainLag({ chain }: { chain: ChainStatus }) {
  if (chain.status === 'not_configured' || chain.enabled === false)
    return <span className="chain-lag status-muted">{dash}</span>
  const tone = lagTone(chain.lagSeconds, chain)
  return (
    <span
      className={`chain-lag num status-${tone}`}
      title={`head lag${chain.lagEstimated ? ' (estimated from block age)' : ''}: lagging after ${chain.laggingAfterSeconds} s, stalled after ${chain.stalledAfterSeconds} s`}
    >
      {chain.lagBlocks === null && chain.lagSeconds === null
        ? dash
        : `${fmtLagBlocks(chain)} blk · ${fmtSeconds(chain.lagSeconds)}`}
    </span>
  )
}
