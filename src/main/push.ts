import type { PushMessage, PushPayload, PushTopic } from '../shared/contract'
import type { Disposable } from '../shared/disposable'
import { Emitter } from '../shared/emitter'
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
  const messages = new Emitter<PushMessage>({
    onListenerError: (error, message) =>
      log.error('a push listener threw; the others still got the message', { topic: message.topic, error }),
    onLeakWarning: (listeners) =>
      log.warn('push listeners keep growing: one is never disposed', { listeners }),
  })
  return {
    publish(topic, payload) {
      messages.fire({ topic, payload } as PushMessage)
    },
    subscribe: messages.event,
  }
}
