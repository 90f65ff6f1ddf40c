import type { ReplayStatus } from '../../../../shared/contract/replay'
import { linkHash } from '../../../../shared/links'
import { formatAge } from '../../../../shared/time'
import { StatusBadge } from '../Status'
import { Fact } from './Tile'

/** The replay sentinel in the listener tile: suspected replays of stored ids in the last 24 h, the
 * newest named with the address it came from and linked to its event. */
export function ReplayFact({ status, now }: { status: ReplayStatus | null; now: number }) {
  const latest = status?.recent[0]
  return (
    <Fact label="replays">
      {!status ? (
        '—'
      ) : !latest || status.lastDay === 0 ? (
        'none suspected in 24 h'
      ) : (
        <span data-testid="replay-fact">
          <StatusBadge tone="bad" label={`${status.lastDay.toLocaleString('en-US')} suspected`} />{' '}
          <a href={linkHash({ view: 'events', eventId: latest.id })} title={latest.reason}>
            {latest.id}
          </a>{' '}
          <span className="dim">
            from <span className="mono">{latest.remote ?? 'unknown address'}</span>,{' '}
            {formatAge(latest.at, now)}
          </span>
        </span>
      )}
    </Fact>
  )
}
