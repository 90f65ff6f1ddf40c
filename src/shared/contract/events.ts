import { z } from 'zod'
import { method } from './define'
import { StorageStatus } from './storage'

export const EventGroupSchema = z.enum(['payments', 'cards', 'business', 'unknown'])

/** One row of the Events table: everything but the raw body. */
export const EventSummary = z.object({
  seq: z.number().int(),
  id: z.string(),
  type: z.string(),
  group: EventGroupSchema,
  createdAt: z.string(),
  /** created_at parsed, null when the sender's text is not a date. */
  createdAtMs: z.number().nullable(),
  /** First delivery, when it was committed (ms since the epoch). */
  receivedAt: z.number(),
  lastDeliveryAt: z.number(),
  deliveries: z.number().int(),
  /** Endpoint id whose secret matched (`wh_…`, or `env-N` for WATCHDESK_WEBHOOK_SECRETS). */
  endpoint: z.string().nullable(),
  dataId: z.string().nullable(),
  fundingLine: z.string().nullable(),
  /** A redelivery of this id came with a different body: the first body is kept, the latest
   * differing one is in the detail (`conflictBody`). */
  conflict: z.boolean(),
  /** The relay (a source of this console) the event was synced from; null (or absent) for the local listener. */
  source: z.string().nullable().optional(),
})
export type EventSummary = z.infer<typeof EventSummary>

/** The replay sentinel's verdict on one arrival of an id (docs/events.md, "Replays"). */
export const DeliveryVerdict = z.enum(['first', 'retry', 'suspected_replay'])
export type DeliveryVerdict = z.infer<typeof DeliveryVerdict>

/** One arrival of an event's id at this listener, with the sentinel's verdict. */
export const EventArrival = z.object({
  /** When it arrived (ms since the epoch). */
  at: z.number(),
  /** The peer's address (`203.0.113.9`, or `203.0.113.9 via 127.0.0.1` behind a proxy that sets
   * X-Forwarded-For); null for an event synced from a relay. */
  remote: z.string().nullable(),
  verdict: DeliveryVerdict,
  /** Why, in words ("fits the 1st retry, 61 s after created_at"). */
  reason: z.string(),
  /** Its body differed from the stored one (a conflict: its own flag, whatever the verdict). */
  conflicted: z.boolean(),
})
export type EventArrival = z.infer<typeof EventArrival>

export const EventDetail = EventSummary.extend({
  /** The body exactly as received (UTF-8 text). */
  body: z.string(),
  data: z.unknown(),
  /** How many redeliveries came with a body different from `body`. */
  conflicts: z.number().int(),
  /** The latest differing body (UTF-8 text), null without a conflict. */
  conflictBody: z.string().nullable(),
  /** Each arrival of this id recorded here, oldest first, with its verdict (`deliveries` is their
   * count; events stored before the sentinel existed have none listed). */
  arrivals: z.array(EventArrival).optional(),
})
export type EventDetail = z.infer<typeof EventDetail>

export const EventFilter = z
  .object({
    groups: z.array(EventGroupSchema).max(4).optional(),
    types: z.array(z.string().min(1).max(200)).max(50).optional(),
    /** received_at range, ms since the epoch, inclusive. */
    from: z.number().optional(),
    to: z.number().optional(),
    /** Event id or data id, or a prefix of one (`evt_01HZ`, `fund_7Q2M`). */
    search: z.string().max(200).optional(),
  })
  .strict()
export type EventFilter = z.infer<typeof EventFilter>

/** Keyset position: rows are ordered newest first by (receivedAt, seq). */
export const EventCursor = z.object({ receivedAt: z.number(), seq: z.number().int() }).strict()
export type EventCursor = z.infer<typeof EventCursor>

export const Rejection = z.object({
  at: z.number(),
  path: z.string(),
  status: z.number().int(),
  reason: z.string(),
  size: z.number().int(),
  remote: z.string(),
})
export type Rejection = z.infer<typeof Rejection>

export const LatencyStats = z.object({
  count: z.number().int(),
  p50Ms: z.number().nullable(),
  p99Ms: z.number().nullable(),
  maxMs: z.number().nullable(),
})

export const ListenerStatus = z.object({
  listening: z.boolean(),
  url: z.string().nullable(),
  /** Why the listener is not running, with the fix (null while it listens). Stored events, chains
   * and wallets keep working meanwhile. */
  problem: z.string().nullable(),
  /** Endpoint ids whose secrets the listener holds (never the secrets). */
  endpoints: z.array(z.string()),
  secretsProblem: z.string().nullable(),
  accepted: z.number().int(),
  duplicates: z.number().int(),
  rejected: z.number().int(),
  /** Redeliveries since start whose body differed from the stored one (see EventSummary.conflict). */
  conflicts: z.number().int(),
  /** Deliveries answered 503 since start because the database could not commit. */
  unavailable: z.number().int(),
  /** Whether the database takes commits; not `ok` means deliveries are answered 503. */
  storage: StorageStatus,
  /** Answer latency over the last 1,000 deliveries, from request to the last byte of the answer. */
  latency: LatencyStats,
  /** The same for card.authorization.request, which the service needs answered within 2 s. */
  authorizationLatency: LatencyStats,
  /** New events the listener stored in the last minute and hour, and when the last one came.
   * `since`: the counts cover only time after it (the start, or an hour back read from the store). */
  activity: z.object({
    /** New events of every origin: this listener's deliveries and the relay sources' syncs. */
    lastMinute: z.number().int(),
    /** Of `lastMinute`, those synced from relay sources (the label on the Overview's events/min). */
    relayedLastMinute: z.number().int(),
    lastHour: z.number().int(),
    lastEventAt: z.number().nullable(),
    since: z.number(),
  }),
  recentRejections: z.array(Rejection),
  /** Times the listener was not running (previous run's last sign of life → next start). */
  outages: z.array(z.object({ from: z.number(), to: z.number() })),
})
export type ListenerStatus = z.infer<typeof ListenerStatus>

export const eventsMethods = {
  'events.list': method(
    'Stored events, newest first, one page after the cursor (keyset pagination)',
    z
      .object({
        filter: EventFilter.default({}),
        after: EventCursor.optional(),
        limit: z.number().int().min(1).max(1000).default(200),
      })
      .strict(),
    z.object({ rows: z.array(EventSummary), next: EventCursor.nullable() }),
  ),
  'events.count': method(
    'How many stored events match the filter (counted up to a cap)',
    z.object({ filter: EventFilter.default({}) }).strict(),
    z.object({
      count: z.number().int(),
      capped: z.boolean(),
      total: z.number().int(),
      // The newest event's seq the count includes (0 when none): a pushed event at or below it is
      // already counted, one above it is not (the page and the count are two reads).
      throughSeq: z.number().int(),
    }),
  ),
  'events.get': method(
    'One stored event with its raw body',
    z.object({ id: z.string().min(1).max(255) }).strict(),
    EventDetail,
  ),
  'events.export': method(
    'The filtered events as JSON lines or CSV text (at most 50,000 rows)',
    z.object({ filter: EventFilter.default({}), format: z.enum(['jsonl', 'csv']) }).strict(),
    z.object({ text: z.string(), rows: z.number().int(), truncated: z.boolean(), fileName: z.string() }),
  ),
  'events.listener': method(
    'State of the webhook listener: URL, secrets in use, counts, latency, rejections',
    z.object({}).strict(),
    ListenerStatus,
  ),
  'events.sendTest': method(
    'Signs a sample envelope of the type with a configured webhook secret and posts it to the listener',
    z.object({ type: z.string().min(1).max(200), endpoint: z.string().min(1).max(200).optional() }).strict(),
    z.object({
      id: z.string(),
      status: z.number().int(),
      endpoint: z.string(),
      url: z.string(),
      /** The listener's reply body: on a refusal, its sentence saying why. */
      answer: z.string(),
    }),
  ),
}

export const eventsPushes = {
  /** Committed events, batched (~150 ms) so 1,000 events/s never floods the UI. `omitted` counts
   * events of the batch left out to keep it small: the view reloads its first page then. */
  'events.appended': z.object({ events: z.array(EventSummary), omitted: z.number().int() }),
  'events.listener': ListenerStatus,
}
