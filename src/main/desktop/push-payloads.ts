import { z } from 'zod'
import { chainStatuses } from '../../shared/chains/health'
import type { ChainStatusKind } from '../../shared/chains/health'
import { Alert } from '../../shared/contract/alerts'

/** The desktop shell's reading of the push topics it follows (`chains.status`, `events.appended`,
 * `alerts.alert`).
 * It takes only the fields it uses and lets the rest pass, so the tray and notifications keep
 * working when a capability adds fields; a payload of another shape gives null, and the shell logs it. */

/** What the desktop shell needs of one chain from the `chains.status` push: the rest of the
 * payload (head, lag, latency…) is the Chains view's business. Parsed leniently (extra fields
 * pass) so the tray keeps working when the chains capability adds fields. */
export const ChainStatusLike = z.object({
  serviceId: z.number().int(),
  name: z.string(),
  status: z.enum(chainStatuses),
  enabled: z.boolean().optional(),
  /** The evaluation's sentence (`no answer for 30 s`). */
  reason: z.string().optional(),
  error: z.object({ message: z.string() }).nullish(),
})
export type ChainStatusLike = z.infer<typeof ChainStatusLike>

const ChainsPayload = z.union([
  z.object({ chains: z.array(ChainStatusLike) }).transform((p) => p.chains),
  z.array(ChainStatusLike),
])

/** The chains of a `chains.status` payload (`{ chains: [...] }` or the bare list). */
export function chainsFromPush(payload: unknown): ChainStatusLike[] | null {
  const parsed = ChainsPayload.safeParse(payload)
  return parsed.success ? parsed.data : null
}

export const EventLike = z.object({
  id: z.string(),
  type: z.string(),
  fundingLine: z.string().nullish(),
  dataId: z.string().nullish(),
})
export type EventLike = z.infer<typeof EventLike>

/** The events of an `events.appended` batch. */
export function eventsFromPush(payload: unknown): EventLike[] | null {
  const parsed = z.object({ events: z.array(EventLike) }).safeParse(payload)
  return parsed.success ? parsed.data.events : null
}

/** The alert of an `alerts.alert` push (the contract's schema; extra fields pass). */
export function alertFromPush(payload: unknown): Alert | null {
  const parsed = Alert.safeParse(payload)
  return parsed.success ? parsed.data : null
}

export type { ChainStatusKind }
