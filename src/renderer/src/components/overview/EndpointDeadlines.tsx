import type { DisablementStatus, EndpointForecast } from '../../../../shared/contract/disablement'
import { formatAge, formatMoment } from '../../../../shared/time'
import { usePushedValue } from '../../api/pushed-value'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'
import { Fact } from './Tile'

const stateBadge: Record<EndpointForecast['state'], { tone: Tone; label: string }> = {
  clear: { tone: 'good', label: 'clear' },
  at_risk: { tone: 'warn', label: 'at risk' },
  failed: { tone: 'bad', label: 'deliveries failed' },
}

/** The worst endpoint's state, or the outage under way's deadline. */
function overall(status: DisablementStatus, now: number): { tone: Tone; label: string } {
  const states = status.endpoints.map((e) => e.state)
  if (states.includes('failed')) return { tone: 'bad', label: 'deliveries marked failed' }
  if (states.includes('at_risk')) return { tone: 'warn', label: 'disablement risk' }
  const deadline = status.endpoints.find((e) => e.deadline !== null)?.deadline
  if (deadline != null) return { tone: 'info', label: `deadline ${formatMoment(deadline, now)}` }
  return { tone: 'good', label: 'no risk' }
}

/** Issue 32.4 at a glance, inside the Public URL tile (the reachability it is about, and no row
 * added to the Overview): per endpoint, whether an outage of the listener will make the service
 * mark deliveries failed (and maybe disable the endpoint), or already did. */
export function EndpointDeadlines({ now }: { now: number }) {
  const status = usePushedValue('disablement.status', 'disablement.status')
  if (!status || status.endpoints.length === 0) return null
  const shown = status.endpoints.filter((e) => e.state !== 'clear' || e.deadline !== null).slice(0, 2)
  return (
    <div className="endpoint-deadlines" aria-label="Endpoint deadlines">
      <Fact label="deadlines">
        <StatusBadge {...overall(status, now)} />
        {status.outage && <span className="dim"> · unreachable {formatAge(status.outage.since, now)}</span>}
      </Fact>
      {shown.map((e) => (
        <p
          key={e.endpoint}
          className={e.state === 'clear' ? 'hint' : 'tile-problem'}
          aria-label={`endpoint ${e.endpoint}: ${stateBadge[e.state].label}`}
        >
          <span className="mono">{e.endpoint}</span> {e.message}
          {e.apiStatus && ` API: ${e.apiStatus}.`}
        </p>
      ))}
      {/* With endpoints watched, a note is what limits the watch (its record cannot be saved). */}
      {status.note && <p className="tile-problem">{status.note}</p>}
    </div>
  )
}
