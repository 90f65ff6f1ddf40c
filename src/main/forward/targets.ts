import type { Config } from '../../shared/config'
import { allEvents } from './patterns'
import { defaultRetrySchedule } from './schedule'

/** A forward target as the dispatcher uses it: configured (`forward.targets.<name>`) or ad hoc
 * (`--forward-to URL`, named `url:<URL>` so a restart with the same flag finds its queue). */
export interface ForwardTarget {
  name: string
  url: string
  events: string[]
  headers: Record<string, string>
  timeoutMs: number
  concurrency: number
  enabled: boolean
  retrySchedule: number[]
  adhoc: boolean
  /** The target's own signing secret (keychain `forward-secret:<name>` or --forward-secret-env);
   * null passes the service's original signature through. Never logged, never sent to the UI. */
  secret: string | null
}

/** `--forward-to URL` (repeatable) with the command's --events and --forward-secret-env. */
export interface AdhocTarget {
  url: string
  events?: string[]
  secret?: string | null
  /** Added by a replay to a URL: receives the replayed events, no new ones. */
  replayOnly?: boolean
}

export const defaultTimeoutMs = 10_000
export const defaultConcurrency = 8
export const adhocTargetName = (url: string): string => `url:${url}`

export function resolveTargets(
  forward: Config['forward'],
  adhoc: readonly AdhocTarget[],
  secrets: ReadonlyMap<string, string>,
): ForwardTarget[] {
  const configured = Object.entries(forward.targets).map(([name, t]): ForwardTarget => ({
    name,
    url: t.url,
    events: t.events && t.events.length > 0 ? t.events : allEvents,
    headers: t.headers ?? {},
    timeoutMs: t.timeoutMs ?? defaultTimeoutMs,
    concurrency: t.concurrency ?? defaultConcurrency,
    enabled: t.enabled ?? true,
    retrySchedule: t.retrySchedule ?? defaultRetrySchedule,
    adhoc: false,
    secret: secrets.get(name) ?? null,
  }))
  const seen = new Set<string>()
  const extra = adhoc
    .filter((a) => !seen.has(a.url) && seen.add(a.url))
    .map((a): ForwardTarget => ({
      name: adhocTargetName(a.url),
      url: a.url,
      events: a.replayOnly ? [] : a.events && a.events.length > 0 ? a.events : allEvents,
      headers: {},
      timeoutMs: defaultTimeoutMs,
      concurrency: defaultConcurrency,
      enabled: true,
      retrySchedule: defaultRetrySchedule,
      adhoc: true,
      secret: a.secret ?? null,
    }))
  return [...configured, ...extra].sort((a, b) => a.name.localeCompare(b.name))
}
