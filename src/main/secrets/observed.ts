import { toDisposable } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import type { SecretStore } from './store'

export type ObservedSecretStore = SecretStore & {
  /** Called after a set or delete succeeded, with the account that changed. */
  onChange(listener: (account: string) => void): Disposable
}

/** Lets a capability cache secrets (the listener's webhook secrets) and hear when another one
 * (payments creating an endpoint) changes them, without the two knowing each other. */
export function observeSecrets(store: SecretStore): ObservedSecretStore {
  const listeners = new Set<(account: string) => void>()
  const notify = (account: string) => listeners.forEach((l) => l(account))
  return {
    ...store,
    set: async (account, secret) => {
      const result = await store.set(account, secret)
      if (result.ok) notify(account)
      return result
    },
    delete: async (account) => {
      const result = await store.delete(account)
      if (result.ok) notify(account)
      return result
    },
    onChange: (listener) => {
      listeners.add(listener)
      return toDisposable(() => listeners.delete(listener))
    },
  }
}
