import type { Logger } from '../log'
import { createChainWatch, createUnseenCounter, eventNotifications } from './notifications'
import type { DesktopNotification } from './notifications'
import { chainsFromPush, eventsFromPush } from './push-payloads'
import type { ChainStatusLike } from './push-payloads'
import { trayState } from './tray-status'
import type { TrayState } from './tray-status'

export interface AttentionOptions {
  /** `notifications.eventTypes`, read at each batch so a saved config applies at once. */
  patterns(): readonly string[]
  windowFocused(): boolean
  showTray(state: TrayState): void
  notify(notification: DesktopNotification): void
  log: Logger
}

/** What the desktop shell does with the push stream, without Electron: follows `chains.status`
 * and `events.appended`, keeps the tray's state and raises notifications. */
export function createAttention(options: AttentionOptions) {
  const { patterns, windowFocused, showTray, notify, log } = options
  const chainWatch = createChainWatch()
  const unseen = createUnseenCounter()
  let chains: ChainStatusLike[] = []
  const refresh = () => showTray(trayState(chains, unseen.count()))

  const handlers: Record<string, (payload: unknown) => void> = {
    'chains.status'(payload) {
      const next = chainsFromPush(payload)
      if (!next) return log.warn('desktop: a chains.status push of an unexpected shape was ignored')
      chains = mergeChains(chains, next)
      for (const n of chainWatch.update(next)) notify(n)
      refresh()
    },
    'events.appended'(payload) {
      const events = eventsFromPush(payload)
      if (!events) return log.warn('desktop: an events.appended push of an unexpected shape was ignored')
      for (const n of eventNotifications(events, patterns())) notify(n)
      const before = unseen.count()
      if (unseen.add(events, patterns(), windowFocused()) !== before) refresh()
    },
  }

  refresh()
  return {
    handle(message: { topic: string; payload: unknown }): void {
      handlers[message.topic]?.(message.payload)
    },
    markSeen(): void {
      if (unseen.count() === 0) return
      unseen.markSeen()
      refresh()
    },
    state: () => trayState(chains, unseen.count()),
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
