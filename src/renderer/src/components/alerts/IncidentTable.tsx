import type { Incident, IncidentCause } from '../../../../shared/contract/alerts'
import { formatClock, formatDateTime, formatDuration } from '../../../../shared/time'
import { StatusBadge } from '../Status'

/** Incidents, newest first: open ones in red or amber, closed ones with how long they lasted. What
 * fired wraps (its rule on a line of its own) rather than being cut, so the table fits the chain
 * drawer at 1024 px. */
export function IncidentTable({
  incidents,
  label,
  linked = null,
}: {
  incidents: Incident[]
  label: string
  /** The incident a link pointed at: marked and scrolled into view. */
  linked?: number | null
}) {
  if (incidents.length === 0) return <p className="hint">No incidents.</p>
  return (
    <table className="grid incident-table" aria-label={label}>
      <thead>
        <tr>
          <th>State</th>
          <th>What fired</th>
          <th>Started</th>
          <th className="num">Duration</th>
          <th className="num">Alerts</th>
        </tr>
      </thead>
      <tbody>
        {incidents.map((i) => (
          <tr
            key={i.id}
            data-incident-id={i.id}
            className={i.id === linked ? 'linked' : undefined}
            aria-current={i.id === linked ? 'true' : undefined}
            ref={i.id === linked ? (row) => row?.scrollIntoView({ block: 'nearest' }) : undefined}
          >
            <td>
              {i.closedAt === null ? (
                <StatusBadge tone={i.severity === 'critical' ? 'bad' : 'warn'} label="open" />
              ) : (
                <StatusBadge
                  tone={i.closedReason === 'recovered' ? 'good' : 'muted'}
                  label={i.closedReason ?? 'closed'}
                />
              )}
            </td>
            <td className="incident-what" title={i.detail}>
              {i.title} <span className="dim incident-rule">{i.rule}</span>
              <CauseTimeline causes={i.causes} />
            </td>
            <td className="num-left incident-time">{formatDateTime(i.openedAt)}</td>
            <td className="num">
              {i.closedAt === null || i.durationMs === null ? 'ongoing' : formatDuration(i.durationMs)}
            </td>
            <td className="num">{i.alerts}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const causeVerb: Record<IncidentCause['kind'], string> = {
  opened: 'opened by',
  joined: 'joined by',
  escalated: 'escalated to',
  changed: 'now',
  cleared: 'cleared',
  resolved: 'resolved',
  closed: 'closed',
}

/** The incident's causes in order ("10:00:05 opened by chain.error_rate · 10:01:02 escalated to
 * chain.down …"): shown when more than one cause took part, so one outage reads as one story. */
function CauseTimeline({ causes }: { causes: IncidentCause[] }) {
  const steps = causes.filter((c) => c.kind !== 'resolved' && c.kind !== 'closed')
  if (steps.length < 2) return null
  return (
    <ol className="incident-causes dim" aria-label="Timeline of causes">
      {causes.map((c, n) => (
        <li key={n} title={c.title}>
          <span className="num">{formatClock(c.t)}</span> {causeVerb[c.kind]}
          {c.kind === 'resolved' || c.kind === 'closed' ? '' : ` ${c.rule}`}
        </li>
      ))}
    </ol>
  )
}
