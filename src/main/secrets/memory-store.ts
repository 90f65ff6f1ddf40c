import { ok } from '../../shared/result'
import type { SecretStore } from './store'

/** For `--demo` and the CLI's dry runs: lives and dies with the process, never touches disk. */
export function createMemoryStore(initial: Record<string, string> = {}): SecretStore {
  const secrets = new Map(Object.entries(initial))
  return {
    get: async (account) => ok(secrets.get(account) ?? null),
    set: async (account, secret) => {
      secrets.set(account, secret)
      return ok(undefined)
    },
    delete: async (account) => ok(secrets.delete(account)),
    list: async () =>
      ok([...secrets].map(([account, secret]) => ({ account, secret, source: 'memory' as const }))),
    status: async () => ({
      reachable: true,
      backend: 'keychain',
      message: 'Secrets are held in memory for this run only.',
    }),
  }
}
