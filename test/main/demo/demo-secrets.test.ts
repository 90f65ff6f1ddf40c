import { describe, expect, it } from 'vitest'
import { demoSecrets } from '../../../src/main/demo'
import { createMemoryStore, withEnvironmentSecrets } from '../../../src/main/secrets'
import type { SecretStore } from '../../../src/main/secrets'
import { err, unwrap } from '../../../src/shared/result'

/** `serve --demo` sees secrets as `serve` does: its own in memory first, then this host's keychain
 * with the environment over it (WATCHDESK_WEBHOOK_SECRETS, channels stored by `alerts channel
 * set`), and the keychain's state is the host's, as `doctor` reports it. */

/** A keychain that cannot be reached (no session bus): every call fails. */
const lockedKeychain: SecretStore = {
  get: async () => err('unavailable', 'The keychain is locked.'),
  set: async () => err('unavailable', 'The keychain is locked.'),
  delete: async () => err('unavailable', 'The keychain is locked.'),
  list: async () => err('unavailable', 'The keychain is locked.'),
  status: async () => ({ reachable: false, backend: 'keychain', message: 'The keychain is locked.' }),
}

describe('the demo’s secrets', () => {
  it('honours WATCHDESK_WEBHOOK_SECRETS and says the keychain state doctor says', async () => {
    const demo = createMemoryStore({ 'webhook-secret:demo': 'whsec_demo_0123' })
    const host = withEnvironmentSecrets(lockedKeychain, { WATCHDESK_WEBHOOK_SECRETS: 'whsec_mine_0123' })
    const secrets = demoSecrets(demo, host)
    const accounts = unwrap(await secrets.list()).map((e) => e.account)
    expect(accounts).toEqual(['webhook-secret:demo', 'webhook-secret:env-1'])
    expect(unwrap(await secrets.get('webhook-secret:env-1'))).toBe('whsec_mine_0123')
    // Not "reachable" because the demo holds its own in memory: the host's keychain is locked.
    expect(await secrets.status()).toMatchObject({ reachable: false })
  })

  it('finds an alert channel stored in the keychain with `alerts channel set`, and writes only to memory', async () => {
    const keychain = createMemoryStore({ 'alert-channel:ops': 'https://hooks.example/ops whsec_ops' })
    const secrets = demoSecrets(createMemoryStore({ 'project-uid': 'demo_uid' }), keychain)
    expect(unwrap(await secrets.get('alert-channel:ops'))).toBe('https://hooks.example/ops whsec_ops')
    expect(unwrap(await secrets.get('project-uid'))).toBe('demo_uid')
    unwrap(await secrets.set('api-key:demo', 'sk_sandbox_demo'))
    expect(unwrap(await keychain.get('api-key:demo'))).toBeNull()
  })
})
