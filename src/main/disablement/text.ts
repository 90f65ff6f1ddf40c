import { formatDateTime, formatDuration } from '../../shared/time'
import type { Forecast } from './forecast'

/** Times in alerts are UTC, said once: a channel is read anywhere. */
export const utc = (ms: number) => `${formatDateTime(ms, { zone: 'utc' }).slice(0, 16)} UTC`

/** What makes the listener reachable again, by what showed the outage. */
export function fixFor(cause: string | undefined): string {
  if (cause === 'public_url')
    return 'fix the tunnel or proxy behind listener.publicUrl (Settings → Webhook endpoints), then check with `watchdesk doctor`'
  if (cause === 'listener')
    return 'start the listener again (its problem is in the Events view), then check with `watchdesk doctor`'
  if (cause?.startsWith('source:'))
    return `bring the relay of ${cause} back (\`watchdesk sources list\` shows it), then check with \`watchdesk doctor\``
  return 'keep the listener running and its public URL reachable'
}

export const riskTitle = (endpoint: string, f: Forecast) =>
  `Endpoint ${endpoint}: deliveries marked failed at ${utc(f.deadline!)} unless the listener is reachable`

export function riskBody(endpoint: string, f: Forecast, now: number): string {
  const shown = f.evidence ? ` (${f.evidence.detail})` : ''
  return (
    `This listener has not been reachable since ${utc(f.downSince!)}${shown}. Deliveries first sent then ` +
    `use their 5th and last retry at ${utc(f.deadline!)} (in ${formatDuration(f.deadline! - now)}); ` +
    `after it the service marks them failed and may disable endpoint ${endpoint}. Before then, ` +
    `${fixFor(f.evidence?.cause)}.`
  )
}

export const failedTitle = (endpoint: string) =>
  `Endpoint ${endpoint}: deliveries marked failed, the endpoint may be disabled`

export function failedBody(endpoint: string, f: Forecast, apiSentence: string): string {
  return (
    `Deliveries first sent between ${utc(f.failedFrom!)} and ${utc(f.failedBefore!)} were marked failed; ` +
    `the service may have disabled endpoint ${endpoint} — check with \`watchdesk webhooks list\` and ` +
    `retry the failed ones from its dashboard. All six attempts (the first and 5 retries over 26 h 36 min) ` +
    `fell while this listener could not be reached. ${apiSentence}`
  ).trim()
}

/** The payments API's view of the endpoint, in words (its list shows `status`; spec 2.1 shows only
 * `active`, so any other value is taken as not delivering). */
export function apiSentence(
  endpoint: string,
  listed: { ok: true; status: string | null; found: boolean } | { ok: false; message: string },
): string {
  if (!listed.ok) return `Its status could not be read from the payments API: ${listed.message}`
  if (!listed.found)
    return `The payments API does not list ${endpoint} (deleted, or registered with another key or business).`
  if (listed.status === null) return `The payments API lists ${endpoint} without a status.`
  if (listed.status === 'active')
    return `The payments API lists ${endpoint} as active: not disabled, but the failed deliveries still need a retry from the dashboard.`
  return `The payments API lists ${endpoint} as "${listed.status}": enable it again in the dashboard, then retry the failed deliveries.`
}

/** The Overview's and the status method's sentence for one endpoint. */
export function stateMessage(f: Forecast, now: number): string {
  if (f.state === 'failed')
    return `Deliveries first sent before ${utc(f.failedBefore!)} were marked failed: check with \`watchdesk webhooks list\`, retry them from the dashboard.`
  if (f.state === 'at_risk')
    return `Marked failed at ${utc(f.deadline!)} (in ${formatDuration(f.deadline! - now)}) unless the listener is reachable.`
  if (f.deadline !== null)
    return `Unreachable since ${utc(f.downSince!)}: deliveries marked failed at ${utc(f.deadline)} if it lasts.`
  return 'Reachable: no delivery is near its last retry.'
}
