import { z } from 'zod'
import { chainStatuses } from '../../shared/chains/health'
import type { ChainStatusKind } from '../../shared/chains/health'
import { Alert } from '../../shared/contract/alerts'
import { troubledSourceStates } from '../../shared/glance'

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

/** The tray's other facts, each from its own push topic; null for a payload of another shape. */
const factReaders: Record<string, (payload: unknown) => Partial<TrayFactsLike> | null> = {
  'alerts.changed': (payload) => {
    const p = z.object({ openIncidents: z.number().int() }).safeParse(payload)
    return p.success ? { openIncidents: p.data.openIncidents } : null
  },
  'events.listener': (payload) => {
    const p = z
      .object({ listening: z.boolean(), activity: z.object({ lastMinute: z.number() }) })
      .safeParse(payload)
    return p.success ? { eventsPerMinute: p.data.activity.lastMinute, listenerDown: !p.data.listening } : null
  },
  'payments.publicUrl': (payload) => {
    const p = z.object({ state: z.string() }).safeParse(payload)
    return p.success ? { publicUrlUnreachable: p.data.state === 'unreachable' } : null
  },
  'forward.status': (payload) => {
    const p = z.object({ targets: z.array(z.object({ health: z.string() })) }).safeParse(payload)
    return p.success ? { failingTargets: p.data.targets.filter((t) => t.health === 'failing').length } : null
  },
  'sources.status': (payload) => {
    const p = z.object({ sources: z.array(z.object({ state: z.string() })) }).safeParse(payload)
    return p.success
      ? { troubledSources: p.data.sources.filter((s) => troubledSourceStates.has(s.state)).length }
      : null
  },
}

interface TrayFactsLike {
  openIncidents: number | null
  eventsPerMinute: number | null
  failingTargets: number
  troubledSources: number
  listenerDown: boolean
  publicUrlUnreachable: boolean
}

/** The topics the tray follows besides chains.status. */
export const trayFactTopics = Object.keys(factReaders)

/** What a push says for the tray's facts: undefined when the topic is not one of them, null
 * when its payload has another shape. */
export function trayFactsFromPush(
  topic: string,
  payload: unknown,
): Partial<TrayFactsLike> | null | undefined {
  const read = factReaders[topic]
  return read ? read(payload) : undefined
}
