import type { DisablementStatus, EndpointForecast } from '../../../../shared/contract/disablement'
import { formatAge, formatMoment } from '../../../../shared/time'
import { usePushedValue } from '../../api/pushed-value'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'
import { Fact, Tile } from './Tile'

const stateBadge: Record<EndpointForecast['state'], { tone: Tone; label: string }> = {
  clear: { tone: 'good', label: 'clear' },
  at_risk: { tone: 'warn', label: 'at risk' },
  failed: { tone: 'bad', label: 'deliveries failed' },
}

/** The tile's state: the worst endpoint's, or the outage under way's deadline, or not watched. */
function tileState(status: DisablementStatus, now: number): { tone: Tone; label: string } {
  const states = status.endpoints.map((e) => e.state)
  if (states.includes('failed')) return { tone: 'bad', label: 'deliveries marked failed' }
  if (states.includes('at_risk')) return { tone: 'warn', label: 'disablement risk' }
  if (status.endpoints.length === 0) return { tone: 'muted', label: 'not watched' }
  const deadline = status.endpoints.find((e) => e.deadline !== null)?.deadline
  if (deadline != null) return { tone: 'info', label: `deadline ${formatMoment(deadline, now)}` }
  return { tone: 'good', label: 'no risk' }
}

/** Issue 32.4 at a glance: per endpoint, whether an outage of the listener will make the service
 * mark deliveries failed (and maybe disable the endpoint), or already did. */
export function DisablementTile({ now }: { now: number }) {
  const status = usePushedValue('disablement.status', 'disablement.status')
  const title = 'Endpoint deadlines'
  const link = { href: '#/settings', linkLabel: 'open Settings → Webhook endpoints' }
  if (!status)
    return (
      <Tile title={title} {...link} tone="muted" label="loading">
        {null}
      </Tile>
    )
  return (
    <Tile title={title} {...link} {...tileState(status, now)}>
      {status.note && <p className="hint">{status.note}</p>}
      {status.outage && (
        <Fact label="unreachable">
          since <span className="num">{formatMoment(status.outage.since, now)}</span>{' '}
          <span className="dim">({formatAge(status.outage.since, now)})</span>
        </Fact>
      )}
      <ul className="tile-list">
        {status.endpoints.slice(0, 3).map((e) => (
          <li key={e.endpoint} aria-label={`endpoint ${e.endpoint}: ${stateBadge[e.state].label}`}>
            <span className="mono">{e.endpoint}</span> <StatusBadge {...stateBadge[e.state]} />
            {e.apiStatus && <span className="dim"> API: {e.apiStatus}</span>}
            {e.state !== 'clear' || e.deadline !== null ? (
              <p className={e.state === 'clear' ? 'hint' : 'tile-problem'}>{e.message}</p>
            ) : null}
          </li>
        ))}
      </ul>
      {status.endpoints.length > 3 && <span className="dim">and {status.endpoints.length - 3} more</span>}
      <span className="dim">warned {status.leadMinutes} min before the last retry</span>
    </Tile>
  )
}
