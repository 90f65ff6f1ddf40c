import { views } from './views'
import type { ViewId } from './views'

/** Where a link into the console lands: a view, or one item in it. One definition for the alerts
 * that build links, the renderer that follows them and the desktop shell that receives
 * `watchdesk://` deep links. The hash form (`#/events/evt_…`) is the route itself, so a link works
 * in a browser tab of serve mode and in the desktop window alike; a link never carries the token. */
export type ConsoleTarget =
  | { view: ViewId }
  | { view: 'events'; eventId: string }
  | { view: 'chains'; serviceId: number }
  | { view: 'alerts'; incidentId: number }

/** The scheme the desktop app registers for deep links (`watchdesk://open/#/events/evt_…`). */
export const deepLinkScheme = 'watchdesk'
export const deepLinkBase = `${deepLinkScheme}://open/`

export function linkHash(target: ConsoleTarget): string {
  if ('eventId' in target) return `#/events/${encodeURIComponent(target.eventId)}`
  if ('serviceId' in target) return `#/chains/${target.serviceId}`
  if ('incidentId' in target) return `#/alerts/incident/${target.incidentId}`
  return `#/${target.view}`
}

const viewIds = new Set<string>(views.map((v) => v.id))

/** The target of a hash; anything unknown is the Overview (a stale link still opens the console). */
export function parseLinkHash(hash: string): ConsoleTarget {
  const [view = '', ...rest] = hash.replace(/^#\/?/, '').split('?')[0]!.split('/')
  if (!viewIds.has(view)) return { view: 'overview' }
  const id = rest.length > 0 ? safeDecode(rest.join('/')) : ''
  if (view === 'events' && id) return { view, eventId: id }
  if (view === 'chains' && /^\d+$/.test(id)) return { view, serviceId: Number(id) }
  if (view === 'alerts' && rest[0] === 'incident' && /^\d+$/.test(rest[1] ?? ''))
    return { view, incidentId: Number(rest[1]) }
  return { view: view as ViewId }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return ''
  }
}

/** What an alert is about, as a place in the console: its event, its chain, its incident. */
export function alertTarget(alert: {
  subject: string
  serviceId: number | null
  incidentId: number | null
}): ConsoleTarget {
  if (alert.subject.startsWith('event:')) return { view: 'events', eventId: alert.subject.slice(6) }
  // A summary of several events (a burst) opens the Events view itself.
  if (alert.subject === 'events') return { view: 'events' }
  if (alert.incidentId !== null) return { view: 'alerts', incidentId: alert.incidentId }
  if (alert.serviceId !== null) return { view: 'chains', serviceId: alert.serviceId }
  return { view: 'alerts' }
}

/** A full link: the console's base URL (serve mode, or `listener.publicConsoleUrl` behind a proxy)
 * or the desktop deep-link base, then the hash. */
export function consoleLink(base: string, target: ConsoleTarget): string {
  const root = base.replace(/[?#].*$/, '')
  return `${root.endsWith('/') ? root : `${root}/`}${linkHash(target)}`
}

/** The hash a deep link (`watchdesk://open/#/chains/137`) points at; null for anything else. */
export function hashOfDeepLink(url: string): string | null {
  if (!url.startsWith(`${deepLinkScheme}://`)) return null
  const at = url.indexOf('#')
  return at >= 0 ? url.slice(at) : '#/overview'
}
