import type { PushMessage, PushPayload, PushTopic } from '../shared/contract'
import { toDisposable } from '../shared/disposable'
import type { Disposable } from '../shared/disposable'
import { createLogger } from './log'
import type { Logger } from './log'

export type PushListener = (message: PushMessage) => void

/** Fan-out of live updates to whichever transports are attached (IPC, server-sent events). */
export interface PushBus {
  /** Delivers to every listener; one that throws is logged and the others still get the message, so
   * a broken subscriber never breaks the timer or request that publishes. */
  publish<T extends PushTopic>(topic: T, payload: PushPayload<T>): void
  /** The subscription ends when its owner disposes it. */
  subscribe(listener: PushListener): Disposable
}

export function createPushBus(options: { log?: Logger } = {}): PushBus {
  const log = options.log ?? createLogger()
  const listeners = new Set<PushListener>()
  return {
    publish(topic, payload) {
      const message = { topic, payload } as PushMessage
      // A snapshot: a listener that unsubscribes (or subscribes) while being called changes the next
      // publish, not this one.
      for (const listener of [...listeners]) {
        try {
          listener(message)
        } catch (error) {
          log.error('a push listener threw; the others still got the message', { topic, error })
        }
      }
    },
    subscribe(listener) {
      // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
      const entry: PushListener = (message) => listener(message)
      listeners.add(entry)
      return toDisposable(() => listeners.delete(entry))
    },
  }
}
