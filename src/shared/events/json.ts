import type { EventSummary } from '../contract/events'

/** One stored event as JSON: the one shape of `watchdesk events --json`, `--follow --json` and the
 * API's `events.export` (JSON lines). Snake case like the service's own envelope. */
export function eventJson(event: EventSummary & { data: unknown }) {
  return {
    id: event.id,
    type: event.type,
    created_at: event.createdAt,
    received_at: new Date(event.receivedAt).toISOString(),
    last_delivery_at: new Date(event.lastDeliveryAt).toISOString(),
    deliveries: event.deliveries,
    endpoint: event.endpoint,
    data: event.data,
  }
}
