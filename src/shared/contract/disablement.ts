import { z } from 'zod'
import { method } from './define'

/** Where one webhook endpoint stands against the service's retry ladder (spec 6.2.6–7): after 5
 * failed retries (26 h 36 min after the first attempt) a delivery is marked failed and the endpoint
 * may be disabled. */
export const EndpointForecast = z.object({
  endpoint: z.string(),
  /** clear: nothing will fail soon; at_risk: deliveries will be marked failed within the lead;
   * failed: deliveries used every attempt while the listener could not be reached. */
  state: z.enum(['clear', 'at_risk', 'failed']),
  /** When the outage under way began (null: the listener is reachable). */
  downSince: z.number().nullable(),
  /** When the first deliveries of the outage use their 5th and last retry, if it lasts. */
  deadline: z.number().nullable(),
  /** Deliveries first sent from `failedFrom` to before `failedBefore` were marked failed. */
  failedFrom: z.number().nullable(),
  failedBefore: z.number().nullable(),
  /** What the payments API lists as the endpoint's status, when it was asked (after a failure). */
  apiStatus: z.string().nullable(),
  /** The state in one sentence, with what to do. */
  message: z.string(),
})
export type EndpointForecast = z.infer<typeof EndpointForecast>

export const DisablementStatus = z.object({
  /** The watch's last look (null before the first). */
  checkedAt: z.number().nullable(),
  /** alerts.disablementLeadMinutes: how long before the deadline the warning goes out. */
  leadMinutes: z.number(),
  /** The outage under way: since when, and what shows it (null: the listener is reachable). */
  outage: z.object({ since: z.number(), cause: z.string(), detail: z.string() }).nullable(),
  endpoints: z.array(EndpointForecast),
  /** Why no endpoint is watched, when none is (no public URL, no endpoint secret), or what limits
   * the watch (its outage record cannot be saved: a full disk). */
  note: z.string().nullable(),
})
export type DisablementStatus = z.infer<typeof DisablementStatus>

export const disablementMethods = {
  'disablement.status': method(
    'Per webhook endpoint: whether an outage of the listener will make (or made) the service mark deliveries failed and maybe disable it',
    z.object({}).strict(),
    DisablementStatus,
  ),
}

export const disablementPushes = {
  /** Sent when an endpoint's forecast or the outage under way changed. */
  'disablement.status': DisablementStatus,
}
