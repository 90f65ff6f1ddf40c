import { shouldNotify } from '../../shared/events'
import type { Alert } from '../../shared/contract/alerts'
import { alertTarget, linkHash } from '../../shared/links'
import type { EventLike } from './push-payloads'

/** A desktop notification, decided here and shown by the shell (Electron's Notification).
 * `critical` is only for a state that lasts until someone acts (a critical incident opening: a
 * chain down, stalled or on the wrong network, the listener or storage failing): Linux keeps a
 * critical notification on screen until it is dismissed, so using it for events, reminders or
 * recoveries would pile them up. Those are `normal`: the Alerts and Events views and the tray keep
 * them. */
export interface DesktopNotification {
  title: string
  body: string
  urgency: 'normal' | 'critical'
  /** Where a click takes the operator (a view id of src/shared/views.ts). */
  route: 'events' | 'chains' | 'alerts'
  /** The item itself (`#/events/evt_…`, `#/chains/137`, `#/alerts/incident/12`): the same place the
   * alert's link opens on the other channels. */
  link: string
}

/** The desktop notification for one alert of the `desktop` channel (push `alerts.alert`). The
 * alerts capability already decided whether it is due: confirmation before down, recovery,
 * reminders, maintenance windows, and one summary for a burst of alerting events. */
export function alertNotification(alert: Alert): DesktopNotification {
  return {
    title: alert.title,
    body: alert.body,
    urgency:
      alert.severity === 'critical' && (alert.kind === 'fired' || alert.kind === 'escalated')
        ? 'critical'
        : 'normal',
    route: alert.serviceId !== null ? 'chains' : alert.rule === 'event.type' ? 'events' : 'alerts',
    link: linkHash(alertTarget(alert)),
  }
}

/** Counts alerting events (`alerts.eventTypes`) the operator has not seen: those that arrive
 * while the window is hidden or unfocused. Showing and focusing the window marks them seen. */
export function createUnseenCounter() {
  let unseen = 0
  return {
    add(events: readonly EventLike[], patterns: readonly string[], windowFocused: boolean): number {
      if (!windowFocused) unseen += events.filter((e) => shouldNotify(e.type, patterns)).length
      return unseen
    },
    markSeen(): number {
      unseen = 0
      return unseen
    },
    count: () => unseen,
  }
}
