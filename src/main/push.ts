import type { PushMessage, PushPayload, PushTopic } from '../shared/contract'

export type PushListener = (message: PushMessage) => void

/** Fan-out of live updates to whichever transports are attached (IPC, server-sent events). */
export interface PushBus {
  publish<T extends PushTopic>(topic: T, payload: PushPayload<T>): void
  subscribe(listener: PushListener): () => void
}

export function createPushBus(): PushBus {
  const listeners = new Set<PushListener>()
  return {
    publish(topic, payload) {
      const message = { topic, payload } as PushMessage
      for (const listener of listeners) listener(message)
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
