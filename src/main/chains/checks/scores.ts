import type { SourceScore } from '../../../shared/contract/chains'
import { round } from '../values'
import type { CorroboratedView } from './corroborate'
import type { ReferenceSource } from './reference'

/** Each source scored and explained for the drawer and `chains --sources`: head, distance to the
 * corroborated head, latency, errors over 15 min, counted or excluded (and why), since when. */

export interface ServiceSide {
  endpoint: string | null
  head: number | null
  latencyMs: number | null
  chainId: number | null
  counts: { polls: number; errors: number; rateLimited: number }
  /** Why the service node's head is not taken (wrong network, no answer); null when it is. */
  excluded: Pick<SourceScore, 'reason' | 'detail'> | null
}

export class SourceScores {
  /** Per source: the state it is in and when it entered it. */
  private readonly entered = new Map<string, { key: string; since: string }>()

  score(
    service: ServiceSide,
    references: ReferenceSource[],
    view: CorroboratedView | null,
    t: number,
  ): SourceScore[] {
    const anchor = view?.head ?? service.head
    const distance = (head: number | null) => (head === null || anchor === null ? null : head - anchor)
    const out: SourceScore[] = [
      this.entry('service node', t, {
        role: 'service',
        endpoint: service.endpoint,
        head: service.head,
        distance: distance(service.head),
        latencyMs: service.latencyMs === null ? null : round(service.latencyMs, 1),
        chainId: service.chainId,
        ...service.counts,
        state: service.excluded ? 'excluded' : service.head === null ? 'checking' : 'counted',
        reason: service.excluded?.reason ?? null,
        detail: service.excluded?.detail ?? serviceDetail(service.head, view),
      }),
    ]
    for (const r of references) {
      const reading = r.latest
      const verdict = view?.verdicts.get(r.name)
      const excluded = verdict ? !verdict.counted : reading.excluded !== null
      out.push(
        this.entry(r.name, t, {
          role: 'reference',
          endpoint: r.endpoint,
          head: reading.head,
          distance: distance(reading.head),
          latencyMs: reading.latencyMs === null ? null : round(reading.latencyMs, 1),
          chainId: r.checkedChainId,
          ...r.quality.counts15(t),
          state: excluded ? 'excluded' : view ? 'counted' : 'checking',
          reason: verdict?.reason ?? reading.excluded?.reason ?? null,
          detail: verdict?.detail ?? reading.excluded?.detail ?? 'Not polled yet.',
        }),
      )
    }
    return out
  }

  private entry(name: string, t: number, score: Omit<SourceScore, 'name' | 'since'>): SourceScore {
    const key = `${score.state}:${score.reason ?? ''}`
    let entered = this.entered.get(name)
    if (!entered || entered.key !== key) {
      entered = { key, since: new Date(t).toISOString() }
      this.entered.set(name, entered)
    }
    return { name, ...score, since: entered.since }
  }
}

function serviceDetail(head: number | null, view: CorroboratedView | null): string {
  if (head === null) return 'No answer yet.'
  if (!view || view.head === null) return 'Counted.'
  const d = head - view.head
  if (d > 0) return `Counted; ${d} blocks ahead of the corroborated head (ahead is never lag).`
  if (d < 0) return `Counted; ${-d} blocks behind the corroborated head.`
  return 'Counted; at the corroborated head.'
}
