import type { Disposable } from '../../shared/disposable'
import { Emitter } from '../../shared/emitter'
import type { Logger } from '../log'
import type { SecretStore } from './store'

export type ObservedSecretStore = SecretStore & {
  /** Called after a set or delete succeeded, with the account that changed. */
  onChange(listener: (account: string) => void): Disposable
}

/** Lets a capability cache secrets (the listener's webhook secrets) and hear when another one
 * (payments creating an endpoint) changes them, without the two knowing each other. A listener that
 * throws is logged: the secret is stored all the same, so `set` still resolves with its result. */
export function observeSecrets(store: SecretStore, log?: Logger): ObservedSecretStore {
  const changes = new Emitter<string>({
    onListenerError: (error, account) =>
      log?.error('a secret-change listener threw; the secret was stored all the same', { account, error }),
  })
  return {
    ...store,
    set: async (account, secret) => {
      const result = await store.set(account, secret)
      if (result.ok) changes.fire(account)
      return result
    },
    delete: async (account) => {
      const result = await store.delete(account)
      if (result.ok) changes.fire(account)
      return result
    },
    onChange: changes.event,
  }
}
