import type { Alert } from '../../shared/contract/alerts'
import type { EventSummary } from '../../shared/contract/events'
import { shouldNotify } from '../../shared/events'
import { severityOf } from './rules'

/** An event as the cursor reads it (the summary is read only for the few alerted one by one). */
export interface EventHead {
  seq: number
  id: string
  type: string
}

/** Up to this many alerting events in one round are alerted one by one; more become one summary. */
export const burstAbove = 3
/** Ids named in a summary's text (all of them are in its `events` and in the alert log). */
const idsInText = 20

/** The `event.type` alerts for the events committed since the last round (oldest first): one alert
 * per alerting event, or, for a burst (a catch-up after sleep, a flood), one summary that says how
 * many of which types and lists every event it covers. Nothing is dropped: every alerting event is
 * in exactly one alert. */
export function eventAlerts(
  events: readonly EventHead[],
  patterns: readonly string[],
  t: number,
  describe: (e: EventHead) => EventSummary | null,
): Alert[] {
  const alerting = events.filter((e) => shouldNotify(e.type, patterns))
  const base = {
    t,
    rule: 'event.type',
    serviceId: null,
    kind: 'event' as const,
    severity: severityOf('event.type'),
    incidentId: null,
    durationMs: null,
  }
  const covered = (list: readonly EventHead[]) => list.map((e) => ({ id: e.id, type: e.type, seq: e.seq }))
  if (alerting.length <= burstAbove)
    return alerting.map((e) => {
      const s = describe(e)
      return {
        ...base,
        subject: `event:${e.id}`,
        title: e.type,
        body: [s?.fundingLine, s?.dataId, e.id, s?.source ? `synced from ${s.source}` : null]
          .filter(Boolean)
          .join(' · '),
        events: covered([e]),
      }
    })
  const byType = new Map<string, number>()
  for (const e of alerting) byType.set(e.type, (byType.get(e.type) ?? 0) + 1)
  const counts = [...byType].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  const typesText = counts.map(([type, n]) => `${n} ${type}`).join(', ')
  const ids = alerting.slice(0, idsInText).map((e) => e.id)
  const more = alerting.length - ids.length
  return [
    {
      ...base,
      subject: 'events',
      title: `${alerting.length} alerting events: ${typesText}`,
      body: `${alerting.length} events of alerting types arrived together (${typesText}), among ${events.length} committed: ${ids.join(', ')}${more > 0 ? ` and ${more} more (all listed in the alert log)` : ''}.`,
      events: covered(alerting),
    },
  ]
}
