import { z } from 'zod'
import { method } from './define'

/** A field's JSON type as a handler sees it after JSON.parse. */
export const JsonType = z.enum(['string', 'number', 'boolean', 'null', 'object', 'array'])
export type JsonType = z.infer<typeof JsonType>

/** One field of an event type's `data` that changed: `path` is dotted, arrays as `items[]`, the
 * whole `data` as "". `from`: the types learned so far; `to`: the types this event showed. */
export const ShapeChange = z.object({
  kind: z.enum(['added', 'removed', 'retyped']),
  path: z.string(),
  from: z.array(JsonType),
  to: z.array(JsonType),
})
export type ShapeChange = z.infer<typeof ShapeChange>

/** The changes one event showed first for its type: one warning (`webhook.shape_changed`). */
export const ShapeDrift = z.object({
  id: z.number().int(),
  type: z.string(),
  /** The first event that showed them (the Events view marks it). */
  eventId: z.string(),
  eventSeq: z.number().int(),
  /** When it was noticed (ms since the epoch). */
  at: z.number(),
  changes: z.array(ShapeChange),
  /** Every change matches a `drift.acknowledged` entry: no warning. */
  acknowledged: z.boolean(),
  /** The changes in words: "fee added (string); amount retyped number → string". */
  summary: z.string(),
})
export type ShapeDrift = z.infer<typeof ShapeDrift>

export const TypeShape = z.object({
  type: z.string(),
  /** Events of the type read so far. */
  events: z.number().int(),
  fields: z.number().int(),
  /** Fewer than `drift.learnEvents` events read: its shape is still being learned, nothing warns. */
  learning: z.boolean(),
})
export type TypeShape = z.infer<typeof TypeShape>

export const DriftStatus = z.object({
  enabled: z.boolean(),
  learnEvents: z.number().int(),
  types: z.array(TypeShape),
  /** Newest first, at most 200. */
  drifts: z.array(ShapeDrift),
  unacknowledged: z.number().int(),
  /** The last event read (seq); events after it are still to be read. */
  readThrough: z.number().int(),
  /** Why the watch cannot save what it learned, with the fix (null when it can). */
  problem: z.string().nullable(),
})
export type DriftStatus = z.infer<typeof DriftStatus>

export const ShapeField = z.object({
  path: z.string(),
  types: z.array(JsonType),
  /** In how many of the type's events the field was present. */
  present: z.number().int(),
})

export const driftMethods = {
  'drift.status': method(
    'Payload drift watch: the event types learned and the shape changes seen, newest first',
    z.object({}).strict(),
    DriftStatus,
  ),
  'drift.shape': method(
    'The learned shape of one event type’s data: every field, its JSON types, how often present',
    z.object({ type: z.string().min(1).max(200) }).strict(),
    z.object({ type: z.string(), events: z.number().int(), fields: z.array(ShapeField) }),
  ),
  'drift.acknowledge': method(
    'Acknowledges a shape change (its fields go into drift.acknowledged): it stops warning',
    z.object({ id: z.number().int() }).strict(),
    DriftStatus,
  ),
}

export const driftPushes = {
  'drift.status': DriftStatus,
}
