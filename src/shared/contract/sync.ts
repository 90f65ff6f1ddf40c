import { z } from 'zod'

/** The relay's sync API (`/sync/*` on its sync port), read by consoles that follow it. Declared
 * here, once: the relay's store types derive from these schemas and the OpenAPI document of the
 * relay is generated from them (src/shared/openapi). */

/** One event as the sync API carries it: everything a console needs to store it as its own
 * listener would (the body exactly as received, base64), and the cursor just after it. */
export const SyncEvent = z.object({
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

/** The sync API's routes, for the relay's OpenAPI document and its test. */
export const syncRoutes = ['/sync/events', '/sync/stream', '/sync/listener', '/healthz', '/metrics'] as const
