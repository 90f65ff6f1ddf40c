import type { Logger } from '../log'
import { alertNotification, createUnseenCounter } from './notifications'
import type { DesktopNotification } from './notifications'
import { alertFromPush, chainsFromPush, eventsFromPush, trayFactsFromPush } from './push-payloads'
import type { ChainStatusLike } from './push-payloads'
import { noTrayFacts, trayState } from './tray-status'
import type { TrayFacts, TrayState } from './tray-status'

export interface AttentionOptions {
  /** `alerts.eventTypes`, read at each batch so a saved config applies at once. */
  patterns(): readonly string[]
  windowFocused(): boolean
  showTray(state: TrayState): void
  notify(notification: DesktopNotification): void
  log: Logger
}

/** What the desktop shell does with the push stream, without Electron: follows `chains.status`,
 * `events.appended` and the glance's facts (open incidents, events/min, failing targets, relay
 * sources) for the tray's state, and raises a notification for each `alerts.alert`
 * (the alerts capability's `desktop` channel) — the only source of notifications, so a chain
 * outage notifies once, after confirmation, and a muted alert not at all. */
export function createAttention(options: AttentionOptions) {
  const { patterns, windowFocused, showTray, notify, log } = options
  const unseen = createUnseenCounter()
  let chains: ChainStatusLike[] = []
  let facts: TrayFacts = noTrayFacts
  const refresh = () => showTray(trayState(chains, unseen.count(), facts))

  const handlers: Record<string, (payload: unknown) => void> = {
    'chains.status'(payload) {
      const next = chainsFromPush(payload)
      if (!next) return log.warn('desktop: a chains.status push of an unexpected shape was ignored')
      chains = mergeChains(chains, next)
      refresh()
    },
    'events.appended'(payload) {
      const events = eventsFromPush(payload)
      if (!events) return log.warn('desktop: an events.appended push of an unexpected shape was ignored')
      const before = unseen.count()
      if (unseen.add(events, patterns(), windowFocused()) !== before) refresh()
    },
    'alerts.alert'(payload) {
      const alert = alertFromPush(payload)
      if (!alert) return log.warn('desktop: an alerts.alert push of an unexpected shape was ignored')
      notify(alertNotification(alert))
    },
  }

  refresh()
  return {
    handle(message: { topic: string; payload: unknown }): void {
      const fact = trayFactsFromPush(message.topic, message.payload)
      if (fact === null)
        return log.warn(`desktop: a ${message.topic} push of an unexpected shape was ignored`)
      if (fact) {
        facts = { ...facts, ...fact }
        // The listener pushes every second; the tray only hears about a change of its words.
        return refresh()
      }
      handlers[message.topic]?.(message.payload)
    },
    markSeen(): void {
      if (unseen.count() === 0) return
      unseen.markSeen()
      refresh()
    },
    state: () => trayState(chains, unseen.count(), facts),
  }
}

/** A push may carry all chains or only those that changed: later entries replace earlier ones. */
function mergeChains(
  current: readonly ChainStatusLike[],
  update: readonly ChainStatusLike[],
): ChainStatusLike[] {
  const byId = new Map(current.map((c) => [c.serviceId, c]))
  for (const c of update) byId.set(c.serviceId, c)
  return [...byId.values()].sort((a, b) => a.serviceId - b.serviceId)
}
