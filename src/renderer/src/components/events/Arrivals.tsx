import type { DeliveryVerdict, EventArrival } from '../../../../shared/contract/events'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'
import { formatDateTime } from './format'

const verdictBadge: Record<DeliveryVerdict, { tone: Tone; label: string }> = {
  first: { tone: 'muted', label: 'first' },
  retry: { tone: 'good', label: 'retry' },
  suspected_replay: { tone: 'bad', label: 'suspected replay' },
}

/** Each arrival of the event's id with the replay sentinel's verdict and the address it came from
 * (docs/events.md, "Replays"). Hidden for an event with none recorded (stored before the sentinel). */
export function Arrivals({ arrivals }: { arrivals: readonly EventArrival[] | undefined }) {
  if (!arrivals || arrivals.length === 0) return null
  const suspected = arrivals.some((a) => a.verdict === 'suspected_replay')
  return (
    <section aria-label="Arrivals">
      <h2>Arrivals</h2>
      {suspected && (
        <p className="banner banner-bad">
          Suspected replay: no retry of the service explains a redelivery below. It was answered 200 as a
          duplicate and not forwarded. Unless you retried it from the service’s dashboard, check who reaches
          the listener from that address and rotate the endpoint’s secret.
        </p>
      )}
      <table className="grid">
        <thead>
          <tr>
            <th>arrived</th>
            <th>from</th>
            <th>verdict</th>
          </tr>
        </thead>
        {/* The reason on a row of its own under each arrival: the pane is narrow at 1024 px. */}
        {arrivals.map((a, i) => (
          <tbody key={i} className="arrival">
            <tr data-verdict={a.verdict}>
              <td className="mono">{formatDateTime(a.at)}</td>
              <td className="mono">{a.remote ?? '—'}</td>
              <td>
                <StatusBadge {...verdictBadge[a.verdict]} />
                {a.conflicted && (
                  <>
                    {' '}
                    <StatusBadge tone="warn" label="different body" />
                  </>
                )}
              </td>
            </tr>
            <tr className="arrival-reason">
              <td colSpan={3} className="hint">
                {a.reason}
              </td>
            </tr>
          </tbody>
        ))}
      </table>
    </section>
  )
}
