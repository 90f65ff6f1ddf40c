import { describe, expect, it } from 'vitest'
import {
  keychainFailure,
  withEnvironmentSecrets,
  createMemoryStore,
  accounts,
} from '../../../src/main/secrets'
import { createKeytarStore } from '../../../src/main/secrets'
import { useTestKeychain } from '../../support/keychain'

describe('the OS keychain (real gnome-keyring in CI)', () => {
  const testKeychain = useTestKeychain()

  it('stores, reads, lists and deletes a secret', async () => {
    const store = testKeychain()
    const secret = 'whsec_roundtrip_' + Math.random().toString(36).slice(2)
    expect((await store.set(accounts.webhookSecret('wh_1'), secret)).ok).toBe(true)
    expect(await store.get(accounts.webhookSecret('wh_1'))).toEqual({ ok: true, value: secret })
    const listed = await store.list()
    expect(listed.ok && listed.value.map((e) => e.account)).toEqual([accounts.webhookSecret('wh_1')])
    expect(await store.delete(accounts.webhookSecret('wh_1'))).toEqual({ ok: true, value: true })
    expect(await store.get(accounts.webhookSecret('wh_1'))).toEqual({ ok: true, value: null })
  })

  it('reports itself reachable', async () => {
    expect(await testKeychain().status()).toMatchObject({ reachable: true, backend: 'keychain' })
  })
})

describe('when the keychain is unavailable', () => {
  it('says what failed and how to fix it, without a plaintext fallback', async () => {
    const store = createKeytarStore('watchdesk-test', async () => {
      throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')
    })
    const result = await store.set('api-key:main', 'sk_sandbox_should_not_be_stored_anywhere')
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.code).toBe('keychain_unavailable')
      expect(result.error.message).toMatch(/keytar.*failed to load.*Cannot autolaunch D-Bus/)
    }
  })

  it('turns a Secret Service failure into cause plus fix', () => {
    const failure = keychainFailure(
      new Error('The name org.freedesktop.secrets was not provided by any .service files'),
    )
    expect(failure.error.code).toBe('keychain_unavailable')
    expect(failure.error.message).toMatch(
      /not reachable \(The name org\.freedesktop\.secrets was not provided/,
    )
    expect(failure.error.message).toMatch(/gnome-keyring/)
    expect(failure.error.message).toMatch(/WATCHDESK_API_KEY/)
  })
})

describe('secrets from the environment', () => {
  it('override the keychain and are listed without being written to it', async () => {
    const keychain = createMemoryStore({
      [accounts.apiKey('env')]: 'sk_sandbox_from_keychain',
      [accounts.apiKey('ops')]: 'sk_sandbox_ops',
    })
    const store = withEnvironmentSecrets(keychain, {
      WATCHDESK_API_KEY: 'sk_sandbox_from_env',
      WATCHDESK_WEBHOOK_SECRETS: 'whsec_a, whsec_b',
      WATCHDESK_PROJECT_UID: 'proj-123',
    })
    expect(await store.get(accounts.apiKey('env'))).toEqual({ ok: true, value: 'sk_sandbox_from_env' })
    expect(await store.get(accounts.webhookSecret('env-2'))).toEqual({ ok: true, value: 'whsec_b' })
    const listed = await store.list()
    expect(listed.ok && listed.value.map((e) => [e.account, e.source])).toEqual([
      ['api-key:env', 'environment'],
      ['project-uid', 'environment'],
      ['webhook-secret:env-1', 'environment'],
      ['webhook-secret:env-2', 'environment'],
      ['api-key:ops', 'memory'],
    ])
    const keychainAfter = await keychain.list()
    expect(keychainAfter.ok && keychainAfter.value.map((e) => e.secret)).not.toContain('sk_sandbox_from_env')
  })

  it('keep serve mode working when the keychain is down, and say so', async () => {
    const down = createKeytarStore('watchdesk-test', async () => {
      throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')
    })
    const store = withEnvironmentSecrets(down, { WATCHDESK_API_KEY: 'sk_live_abcdef123456' })
    const listed = await store.list()
    expect(listed.ok && listed.value.map((e) => e.account)).toEqual(['api-key:env'])
    const status = await store.status()
    expect(status).toMatchObject({ reachable: false, backend: 'environment' })
    expect(status.message).toMatch(/WATCHDESK_API_KEY/)
  })
})
