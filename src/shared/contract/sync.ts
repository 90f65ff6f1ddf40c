import { z } from 'zod'

/** The relay's sync API (`/sync/*` on its sync port), read by consoles that follow it. Declared
 * here, once: the relay's store types derive from these schemas and the OpenAPI document of the
 * relay is generated from them (src/shared/openapi). */

/** One event as the sync API carries it: everything a console needs to store it as its own
 * listener would (the body exactly as received, base64), and the cursor just after it. */
export const SyncEvent = z.object({
  /** Opaque to the client: `POSITION_STORE_TAG` (the position in the store's order, the store's
   * identity and a tag of this event's id), so the relay can check it when it comes back. */
  cursor: z.string(),
  id: z.string(),
  type: z.string(),
  createdAt: z.string(),
  receivedAt: z.number(),
  lastDeliveryAt: z.number(),
  deliveries: z.number().int(),
  endpoint: z.string().nullable(),
  dataId: z.string().nullable(),
  /** `JSON.stringify(envelope.data)` as the relay stored it. */
  data: z.string(),
  /** The raw body, base64. */
  body: z.string(),
  /** Redeliveries to the relay whose body differed from `body` (the first body is kept). A
   * conflict that reaches the relay after a console read the event sends the event again, at that
   * redelivery's place in the commit order. */
  conflicts: z.number().int(),
  /** The latest differing body, base64; null without a conflict. */
  conflictBody: z.string().nullable(),
})
export type SyncEvent = z.infer<typeof SyncEvent>

export const SyncPage = z.object({
  events: z.array(SyncEvent),
  /** Where the next read starts: the last event's cursor, or `after` when nothing was new. */
  next: z.string(),
  /** Events after `next` already readable (only when asked with `count=1`: it costs a count). */
  remaining: z.number().int().optional(),
})
export type SyncPage = z.infer<typeof SyncPage>

/** Every refusal of the sync port: one sentence naming the cause and the fix. */
export const SyncError = z.object({ error: z.string() })

/** `limit` of `/sync/events`: outside this range the relay answers 400 with the range. */
export const syncPageLimit = { min: 1, max: 5_000, default: 500 } as const

/** Why a cursor was refused with 409 (the relay never trusts one it cannot check):
 * `other-store` — issued by another store (the relay's store was replaced or recreated);
 * `past-end` — beyond the newest event the store holds (restored from an older backup, recreated);
 * `replaced-event` — the store holds another event where the cursor's event was (restored from an
 * older backup, then written to). */
export const SyncCursorProblem = z.enum(['other-store', 'past-end', 'replaced-event'])
export type SyncCursorProblem = z.infer<typeof SyncCursorProblem>

/** The 409 answer of `/sync/events` and `/sync/stream` for a cursor this store did not issue as it
 * is now. The client re-anchors: `GET /sync/anchor?id=…` with the ids of the last events it holds,
 * then reads on from the cursor that answer gives (nothing twice, nothing missed). */
export const SyncCursorRefusal = z.object({
  error: z.string(),
  problem: SyncCursorProblem,
  /** The identity of the relay's store now. */
  store: z.string(),
  /** Where to re-anchor. */
  anchor: z.literal('/sync/anchor'),
})
export type SyncCursorRefusal = z.infer<typeof SyncCursorRefusal>

/** `GET /sync/anchor?id=A&id=B…` (newest first, at most `maxAnchorIds`): the cursor just after
 * the newest (in the store's order) of those events the store holds; `0` (read everything again,
 * deduplicated by id) when it holds none of them. */
export const SyncAnchor = z.object({
  cursor: z.string(),
  /** The id the cursor follows; null when none of the ids is in the store. */
  after: z.string().nullable(),
  store: z.string(),
})
export type SyncAnchor = z.infer<typeof SyncAnchor>
export const maxAnchorIds = 100

/** The sync API's routes, for the relay's OpenAPI document and its test. */
export const syncRoutes = [
  '/sync/events',
  '/sync/stream',
  '/sync/anchor',
  '/sync/listener',
  '/healthz',
  '/metrics',
] as const
