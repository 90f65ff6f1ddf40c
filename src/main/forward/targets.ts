import type { Config } from '../../shared/config'
import { urlWithoutCredentials } from '../../shared/config-secrets'
import { allEvents, typeMatches } from './patterns'
import { defaultRetrySchedule } from './schedule'

/** A forward target as the dispatcher uses it: configured (`forward.targets.<name>`) or ad hoc
 * (`--forward-to URL`, named `url:<URL>` so a restart with the same flag finds its queue). A name
 * is stored (the forward tables, logs, `listen`'s lines), so it is the URL without its userinfo,
 * query and fragment: credentials stay in `url`, which is only used for sending. */
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
export const adhocTargetName = (url: string): string => `url:${urlWithoutCredentials(url)}`

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
    .filter((a) => !seen.has(adhocTargetName(a.url)) && seen.add(adhocTargetName(a.url)))
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

/** The one type whose answer the service waits for (spec 6.1). */
export const authorizationRequestType = 'card.authorization.request'

export interface Authorizer {
  /** The target whose answer is the listener's answer; null: the listener's fallback answers. */
  name: string | null
  /** Why the choice may not be what the operator expects (logged, shown in the status). */
  warning: string | null
}

/** Which target answers card.authorization.request: `forward.authorizationTarget`, else the only
 * enabled target subscribing to it, else the first of those in the config (configured targets in
 * the file's order, then `--forward-to` ones) with a warning. */
export function authorizerOf(forward: Config['forward'], targets: readonly ForwardTarget[]): Authorizer {
  const order = [...Object.keys(forward.targets), ...targets.filter((t) => t.adhoc).map((t) => t.name)]
  const subscribed = order
    .map((name) => targets.find((t) => t.name === name))
    .filter((t): t is ForwardTarget => !!t && t.enabled && typeMatches(t.events, authorizationRequestType))
  const chosen = forward.authorizationTarget
  if (chosen !== undefined) {
    if (subscribed.some((t) => t.name === chosen)) return { name: chosen, warning: null }
    return {
      name: null,
      warning: `forward.authorizationTarget names ${chosen}, which is not an enabled target subscribing to ${authorizationRequestType}: the listener answers listener.authorizationAnswer. Fix the name or the target's events.`,
    }
  }
  if (subscribed.length <= 1) return { name: subscribed[0]?.name ?? null, warning: null }
  const names = subscribed.map((t) => t.name)
  return {
    name: names[0]!,
    warning: `${names.length} targets subscribe to ${authorizationRequestType} (${names.join(', ')}): ${names[0]} answers the service (first in the config), the others get it once as a notification. Set forward.authorizationTarget to choose.`,
  }
}

/** How the dispatcher treats its targets as a whole (set with the targets). */
export interface TargetSettings {
  /** The target whose answer to card.authorization.request is relayed (see `authorizerOf`). */
  authorizer: string | null
  probeMs: number
}
