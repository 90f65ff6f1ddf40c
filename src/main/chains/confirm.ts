import { confirmMinMs, confirmedStatuses, statusLabel } from '../../shared/chains/health'
import type { Evaluation } from '../../shared/chains/health'
import type { ChainStatus } from '../../shared/contract/chains'

type Toward = NonNullable<ChainStatus['confirming']>['toward']

export interface Confirmed extends Evaluation {
  confirming: ChainStatus['confirming']
}

/** Debounce of the bad statuses: one failed poll (or one stale head, one odd chain id) is not an
 * outage. A chain turns down, stalled or wrong network only after `needed` such polls in a row
 * and at least 15 s since the first, whichever is later; until then it is "failing (n/N)". Once
 * confirmed it stays bad (moving between bad statuses freely) until one good poll. */
export class Confirmation {
  private count = 0
  private since: number | null = null
  private confirmed = false

  constructor(private readonly needed: number) {}

  /** The same place in the debounce under a new `confirmFailures` (a config edit): a confirmed
   * outage stays confirmed, the polls already counted still count. */
  withNeeded(needed: number): Confirmation {
    const next = new Confirmation(needed)
    next.count = this.count
    next.since = this.since
    next.confirmed = this.confirmed
    return next
  }

  observe(raw: Evaluation, t: number): Confirmed {
    if (!confirmedStatuses.includes(raw.status)) {
      this.count = 0
      this.since = null
      this.confirmed = false
      return { ...raw, confirming: null }
    }
    this.count += 1
    this.since ??= t
    const minMs = this.needed > 1 ? confirmMinMs : 0
    if (this.confirmed || (this.count >= this.needed && t - this.since >= minMs)) {
      this.confirmed = true
      return { ...raw, confirming: null }
    }
    const toward = raw.status as Toward
    return {
      status: 'failing',
      reason: `${statusLabel[toward]} if it goes on (${Math.min(this.count, this.needed)}/${this.needed}): ${raw.reason}`,
      confirming: { toward, count: Math.min(this.count, this.needed), needed: this.needed },
    }
  }
}
