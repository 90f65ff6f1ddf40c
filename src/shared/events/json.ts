import type { EventSummary } from '../contract/events'

/** What the serializer needs beyond the summary: the data and the conflict (a redelivery of this
 * id whose body differed from the stored one). `EventDetail` is one. */
export type SerializedEvent = EventSummary & {
  data: unknown
  conflicts: number
  /** The latest differing body (UTF-8 text), null without a conflict. */
  conflictBody: string | null
}

/** One stored event as JSON: the one shape of `watchdesk events --json` (also with `--store`),
 * `--follow --json` and the API's `events.export` (JSON lines). Snake case like the service's own
 * envelope. `conflicts` counts the redeliveries that came with a different body (the first body
 * is the one kept); `conflict_body` is the latest of those bodies as received. */
export function eventJson(event: SerializedEvent) {
  return {
    id: event.id,
    type: event.type,
    created_at: event.createdAt,
    received_at: new Date(event.receivedAt).toISOString(),
    last_delivery_at: new Date(event.lastDeliveryAt).toISOString(),
    deliveries: event.deliveries,
    endpoint: event.endpoint,
    source: event.source ?? null,
    conflicts: event.conflicts,
    conflict_body: event.conflictBody,
    data: event.data,
  }
}
