import type { AttemptReport } from '../forward'

/** One forward attempt as `listen` and `events replay` print it: `← 200 POST url evt_… 12 ms`, or
 * one JSON object. `listen` forwards to several targets and retries, so it also names the target,
 * numbers the attempt and says what comes next; a replay sends once to one target. */
export function attemptLine(a: AttemptReport, json: boolean, { retries }: { retries: boolean }): string {
  if (json)
    return JSON.stringify({
      kind: 'attempt',
      id: a.eventId,
      type: a.type,
      ...(retries ? { target: a.target.name } : {}),
      url: a.target.url,
      ...(retries ? { attempt: a.attempt } : {}),
      status: a.status,
      ms: Math.round(a.latencyMs),
      state: a.state,
      error: a.error,
    })
  const tail = a.error && a.status === null ? ` (${a.error})` : ''
  const next = !retries
    ? ''
    : a.state === 'failing'
      ? ', will retry'
      : a.state === 'gave_up'
        ? ', gave up'
        : ''
  return `← ${a.status ?? 'ERR'} POST ${a.target.url} ${a.eventId} ${Math.round(a.latencyMs)} ms${tail}${next}`
}
