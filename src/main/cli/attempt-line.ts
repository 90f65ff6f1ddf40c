import type { AttemptReport } from '../forward'
import { maskConfigUrl } from '../../shared/config-secrets'
import { formatClock } from '../../shared/time'
import { inert } from '../../shared/inert'

/** One forward attempt as `listen` and `events replay` print it: `→ 200 POST url evt_… 12 ms`, or
 * one JSON object. `listen` forwards to several targets and retries, so it also names the target,
 * numbers the attempt and says what comes next ("will retry at 13:02:34 (attempt 3)"); a replay
 * sends once to one target. */
export function attemptLine(a: AttemptReport, json: boolean, { retries }: { retries: boolean }): string {
  if (json)
    return JSON.stringify({
      kind: 'attempt',
      id: a.eventId,
      type: a.type,
      ...(retries ? { target: a.target.name } : {}),
      url: maskConfigUrl(a.target.url),
      ...(retries ? { attempt: a.attempt } : {}),
      status: a.status,
      ms: Math.round(a.latencyMs),
      state: a.state,
      ...(retries && a.dueAt !== null ? { retry_at: new Date(a.dueAt).toISOString() } : {}),
      ...(a.stopped ? { target_stopped: true } : {}),
      error: a.error,
    })
  const tail = a.error && a.status === null ? ` (${inert(a.error)})` : ''
  const next = !retries
    ? ''
    : a.stopped
      ? `, target stopped (410 Gone: fix its URL, its queue waits)`
      : a.state === 'failing' && a.dueAt !== null
        ? `, will retry at ${formatClock(a.dueAt)} (attempt ${a.attempt + 1})`
        : a.state === 'gave_up'
          ? ', gave up'
          : ''
  return `→ ${a.status ?? 'ERR'} POST ${inert(maskConfigUrl(a.target.url))} ${inert(a.eventId)} ${Math.round(a.latencyMs)} ms${tail}${next}`
}
