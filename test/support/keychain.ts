import { randomBytes } from 'node:crypto'
import { afterEach } from 'vitest'
import { createKeytarStore } from '../../src/main/secrets'
import type { SecretStore } from '../../src/main/secrets'

/** The real OS keychain (gnome-keyring in CI, via test/with-keychain.sh) under a service name of
 * its own, emptied after each test so the operator's `watchdesk` entries are never touched. */
export function useTestKeychain(): () => SecretStore & { service: string } {
  const created: SecretStore[] = []
  afterEach(async () => {
    for (const store of created.splice(0)) {
      const listed = await store.list()
      if (listed.ok) for (const entry of listed.value) await store.delete(entry.account)
    }
  })
  return () => {
    const service = `watchdesk-test-${randomBytes(4).toString('hex')}`
    const store = Object.assign(createKeytarStore(service), { service })
    created.push(store)
    return store
  }
}
