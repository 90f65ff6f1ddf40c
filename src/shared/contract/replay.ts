import { z } from 'zod'
import { method } from './define'

/** One id's first suspected replay (docs/events.md, "Replays"). */
export const SuspectedReplay = z.object({
  /** The event's envelope id. */
  id: z.string(),
  type: z.string(),
  /** When the suspected arrival came (ms since the epoch). */
  at: z.number(),
  /** The address it came from (null when not known). */
  remote: z.string().nullable(),
  /** Why no retry explains it, in words. */
  reason: z.string(),
})
export type SuspectedReplay = z.infer<typeof SuspectedReplay>

/** The replay sentinel at a glance: suspected replays of the last 24 h, newest first. */
export const ReplayStatus = z.object({
  /** Ids with a suspected replay first seen in the last 24 h (the true count). */
  lastDay: z.number().int(),
  /** The newest of them (at most 5). */
  recent: z.array(SuspectedReplay),
  /** Redeliveries classified since this back end started, by verdict. */
  retries: z.number().int(),
  suspected: z.number().int(),
  /** The tolerance around each rung now in force. */
  tolerance: z.object({ seconds: z.number(), percent: z.number() }),
})
export type ReplayStatus = z.infer<typeof ReplayStatus>

export const replayMethods = {
  'replay.status': method(
    'The replay sentinel: suspected replays of stored event ids in the last 24 h, newest first',
    z.object({}).strict(),
    ReplayStatus,
  ),
}

export const replayPushes = {
  /** Sent when a suspected replay was recorded. */
  'replay.status': ReplayStatus,
}
