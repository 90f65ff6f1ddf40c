import type { EventFilter } from '../../../../shared/contract/events'
import { ReplayControl } from './ReplayControl'

/** "Replay N events to…" for the filtered set of the Events view. */
export function ReplayFilteredButton({ filter, count }: { filter: EventFilter; count: number | null }) {
  if (count === null || count === 0) return null
  return (
    <ReplayControl
      label={`Replay ${count.toLocaleString('en-US')} ${count === 1 ? 'event' : 'events'} to…`}
      filter={filter}
      count={count}
    />
  )
}
