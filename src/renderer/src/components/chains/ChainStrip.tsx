import { useEffect } from 'react'
import { statusLabel, worstStatus } from '../../../../shared/chains/health'
import { useChainsStore } from '../../stores/chains'
import { StatusBadge } from '../Status'
import { StaleNote } from '../Liveness'
import { useStaleSince } from '../../stores/link'
import { badgeOf } from './format'

/** The twelve statuses as one strip (Overview), in the registry's fixed order so nothing jumps. */
export function ChainStrip() {
  const snapshot = useChainsStore((s) => s.snapshot)
  const load = useChainsStore((s) => s.load)
  const registry = useChainsStore((s) => s.registry)
  const stale = useStaleSince() !== null
  useEffect(() => {
    void load()
  }, [load])
  const byId = new Map(snapshot?.chains.map((c) => [c.serviceId, c]))
  const worst = snapshot ? worstStatus(snapshot.chains.map((c) => c.status)) : null
  return (
    <section className="panel chain-strip-panel" aria-label="Chains" data-stale={stale || undefined}>
      <div className="chain-strip-head">
        <h2>Chains</h2>
        {worst && <span className="hint">worst: {statusLabel[worst]}</span>}
        <StaleNote />
        <a className="chain-strip-link" href="#/chains">
          open Chains
        </a>
      </div>
      <ul className="chain-strip">
        {registry.map((info) => {
          const chain = byId.get(info.serviceId)
          const badge = chain ? badgeOf(chain) : { tone: 'muted' as const, label: 'loading' }
          return (
            <li key={info.serviceId} className="chain-strip-cell" data-status={chain?.status ?? 'loading'}>
              <a href="#/chains" title={chain ? `${info.name}: ${badge.label}. ${chain.reason}` : info.name}>
                <span className="chain-strip-name">{info.name}</span>
                <StatusBadge tone={badge.tone} label={badge.label} />
              </a>
            </li>
          )
        })}
      </ul>
    </section>
  )
}
