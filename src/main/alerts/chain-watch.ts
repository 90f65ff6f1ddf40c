import type { Alert } from '../../shared/contract/alerts'
import type { ChainsSnapshot } from '../../shared/contract/chains'
import type { Disposable } from '../../shared/disposable'
import { chainConditions } from './rules'
import type { Condition } from './rules'

export interface ChainWatchDeps {
  onChainsRound(listener: (snapshot: ChainsSnapshot) => void): Disposable
  minFailures(): number
  observe(conditions: Condition[]): void
  /** An alert without an incident (a reorganisation happened; nothing to recover from). */
  instant(alert: Pick<Alert, 'rule' | 'subject' | 'serviceId' | 'title' | 'body'>): void
  stopped(): boolean
}

/** The chain rules, every poll round: the statuses as conditions, and each new reorganisation as
 * an instant alert. */
export function watchChainRounds(deps: ChainWatchDeps): Disposable {
  const reorgsSeen = new Map<number, number>()
  return deps.onChainsRound((snapshot) => {
    if (deps.stopped()) return
    deps.observe(closedWhenUnpolled(snapshot, chainConditions(snapshot, deps.minFailures())))
    for (const c of snapshot.chains) {
      const before = reorgsSeen.get(c.serviceId)
      reorgsSeen.set(c.serviceId, c.reorgs)
      if (before === undefined || c.reorgs <= before || !c.lastReorg) continue
      deps.instant({
        rule: 'chain.reorg',
        subject: `chain:${c.serviceId}`,
        serviceId: c.serviceId,
        title: `${c.name} reorganised ${c.lastReorg.depth} block${c.lastReorg.depth === 1 ? '' : 's'} deep`,
        body: `The block at height ${c.lastReorg.height} changed hash (${c.reorgs} reorganisation${c.reorgs === 1 ? '' : 's'} since start).`,
      })
    }
  })
}

/** A chain no longer polled (disabled, its URL removed in the config) did not recover: its open
 * incidents close as ended, with the config's reason, not with a recovery alert. */
function closedWhenUnpolled(snapshot: ChainsSnapshot, conditions: Condition[]): Condition[] {
  const unpolled = new Map(
    snapshot.chains
      .filter((c) => c.status === 'not_configured')
      .map((c) => [`chain:${c.serviceId}`, c.reason]),
  )
  return conditions.map((c) => {
    const reason = unpolled.get(c.subject)
    return reason === undefined ? c : { ...c, gone: reason }
  })
}
