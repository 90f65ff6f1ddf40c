import { parseLinkHash } from '../../shared/links'
import { useAlertsStore } from './stores/alerts'
import { useChainsStore } from './stores/chains'
import { useEventsStore } from './stores/events'

/** Opens the item a link points at (`#/events/evt_…`, `#/chains/137`, `#/alerts/incident/12`): the
 * view comes from the route, the item is selected in its store, as a click on it would. */
export function followLink(hash: string): void {
  const target = parseLinkHash(hash)
  if ('eventId' in target) void useEventsStore.getState().select(target.eventId)
  else if ('serviceId' in target) useChainsStore.getState().select(target.serviceId)
  else if ('incidentId' in target) useAlertsStore.setState({ linkedIncident: target.incidentId })
}
