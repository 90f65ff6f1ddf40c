import { alarmStatuses, statusLabel } from '../../shared/chains/health'
import type { ChainStatusKind } from '../../shared/chains/health'
import { shouldNotify } from '../../shared/events'
import type { ChainStatusLike, EventLike } from './push-payloads'

/** A desktop notification, decided here and shown by the shell (Electron's Notification).
 * `critical` is only for a state that lasts until someone acts (a chain down, stalled or on the
 * wrong network): Linux keeps a critical notification on screen until it is dismissed, so using it
 * for single events would pile them up. Events are `normal`: the Events view and the tray's unseen
 * count keep them. */
export interface DesktopNotification {
  title: string
  body: string
  urgency: 'normal' | 'critical'
  /** Where a click takes the operator. */
  route: 'events' | 'chains'
}

/** Above this many alerting events in one batch, one summary instead of a notification each. */
export const maxEventNotifications = 3

/** Events whose type matches `notifications.eventTypes` (shouldNotify), one notification each, or
 * one summary for a burst, so a flood of failures never buries the desktop. */
export function eventNotifications(
  events: readonly EventLike[],
  patterns: readonly string[],
): DesktopNotification[] {
  const alerting = events.filter((e) => shouldNotify(e.type, patterns))
  if (alerting.length === 0) return []
  if (alerting.length > maxEventNotifications) {
    const types = [...new Set(alerting.map((e) => e.type))]
    return [
      {
        title: `${alerting.length} alerting events`,
        body: `${types.slice(0, 4).join(', ')}${types.length > 4 ? ` and ${types.length - 4} more types` : ''}`,
        urgency: 'normal',
        route: 'events',
      },
    ]
  }
  return alerting.map((e) => ({
    title: e.type,
    body: [e.fundingLine, e.dataId, e.id].filter(Boolean).join(' · '),
    urgency: 'normal',
    route: 'events',
  }))
}

/** Remembers each chain's last status and says which changes deserve a notification: turning
 * down, stalled or wrong network (from any other status, including the first poll), and
 * recovering from one of those. Lagging and checking stay quiet: the tray shows them. */
export function createChainWatch() {
  const last = new Map<number, ChainStatusKind>()
  return {
    update(chains: readonly ChainStatusLike[]): DesktopNotification[] {
      const out: DesktopNotification[] = []
      for (const chain of chains) {
        const before = last.get(chain.serviceId)
        last.set(chain.serviceId, chain.status)
        if (before === chain.status) continue
        if (alarmStatuses.includes(chain.status)) {
          out.push({
            title: `${chain.name}: ${statusLabel[chain.status]}`,
            body: chain.reason || chain.error?.message || alarmExplanation[chain.status] || '',
            urgency: 'critical',
            route: 'chains',
          })
        } else if (before && alarmStatuses.includes(before) && chain.status === 'healthy') {
          out.push({
            title: `${chain.name}: healthy again`,
            body: `was ${statusLabel[before]}`,
            urgency: 'normal',
            route: 'chains',
          })
        }
      }
      return out
    },
  }
}

const alarmExplanation: Partial<Record<ChainStatusKind, string>> = {
  down: 'The node does not answer.',
  stalled: 'The head has stopped advancing.',
  wrong_network: 'The node answers for another network: check the chain slug.',
}

/** Counts alerting events the operator has not seen: those that arrive while the window is hidden
 * or unfocused. Showing and focusing the window marks them seen. */
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
