import { describe, expect, it } from 'vitest'
import { waitFor } from '../../support/wait'
import { silentLogger } from '../../../src/main/log'
import { createKeytarStore, createMemoryStore, observeSecrets } from '../../../src/main/secrets'
import type { SecretStore } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import { defaultMinRefreshIntervalMs, loadSecretsCache } from '../../../src/main/webhooks/secrets-cache'
import { useTestKeychain } from '../../support/keychain'
import { countEvents, envelope, post, useWebhookBackend } from './helpers'

/** The same store, counting every keychain read (list and get). */
function countingReads(store: SecretStore): SecretStore & { reads: number } {
  const counted = Object.assign(Object.create(null) as object, store, { reads: 0 }) as SecretStore & {
    reads: number
  }
  counted.list = () => (counted.reads++, store.list())
  counted.get = (account) => (counted.reads++, store.get(account))
  return counted
}

describe('listener secrets from the OS keychain', () => {
  const start = useWebhookBackend()
  const keychain = useTestKeychain()

  it('uses a webhook secret written to the keychain after start, and drops a deleted one', async () => {
    const store = keychain()
    const b = await start({ secrets: store })
    const body = envelope('evt_new_endpoint')
    const headers = { 'x-service-signature': signBody('whsec_created_later_42', body) }
    expect((await post(b.webhookUrl, body, headers)).status).toBe(401)
    expect(b.services.webhooks.status().secretsProblem).toMatch(/No webhook secret is configured/)

    // The payments side writes the one-time secret through the context's store when an endpoint is created.
    expect((await b.context.secrets.set('webhook-secret:wh_later', 'whsec_created_later_42')).ok).toBe(true)
    await waitFor(() => b.services.webhooks.status().endpoints.includes('wh_later'), 'the new secret in use')
    expect((await post(b.webhookUrl, body, headers)).status).toBe(200)
    expect(b.services.webhooks.store.get('evt_new_endpoint')?.endpoint).toBe('wh_later')
    expect(b.services.webhooks.status().endpoints).toEqual(['wh_later'])
    expect(JSON.stringify(b.services.webhooks.status())).not.toContain('whsec_created_later_42')

    expect((await b.context.secrets.delete('webhook-secret:wh_later')).ok).toBe(true)
    await waitFor(() => !b.services.webhooks.status().endpoints.includes('wh_later'), 'the secret dropped')
    const again = envelope('evt_after_delete')
    expect(
      (await post(b.webhookUrl, again, { 'x-service-signature': signBody('whsec_created_later_42', again) }))
        .status,
    ).toBe(401)
  })

  it('reads secrets already in the keychain at start', async () => {
    const store = keychain()
    expect((await store.set('webhook-secret:wh_present', 'whsec_present_777')).ok).toBe(true)
    const b = await start({ secrets: observeSecrets(store) })
    const body = envelope('evt_present')
    expect(
      (
        await post(`${b.webhookUrl}/wh_present`, body, {
          'x-service-signature': signBody('whsec_present_777', body),
        })
      ).status,
    ).toBe(200)
  })

  it('accepts a delivery signed with a secret another process wrote to the keychain, on the next delivery', async () => {
    const store = keychain()
    const b = await start({ secrets: store })
    expect(b.services.webhooks.status().endpoints).toEqual([])
    // `watchdesk webhooks create` in another process: its own keychain connection, no onChange here.
    const elsewhere = createKeytarStore(store.service)
    expect((await elsewhere.set('webhook-secret:wh_elsewhere', 'whsec_from_another_process_91')).ok).toBe(
      true,
    )

    const body = envelope('evt_from_elsewhere')
    const answer = await post(b.webhookUrl, body, {
      'x-service-signature': signBody('whsec_from_another_process_91', body),
    })
    expect(answer.status).toBe(200)
    expect(b.services.webhooks.store.get('evt_from_elsewhere')?.endpoint).toBe('wh_elsewhere')
    expect(b.services.webhooks.status().endpoints).toEqual(['wh_elsewhere'])
    expect(JSON.stringify(b.services.webhooks.status())).not.toContain('whsec_from_another_process_91')
  })

  it('re-reads the keychain for /webhooks/<endpoint id> when that endpoint has no cached secret', async () => {
    const store = keychain()
    const b = await start({ secrets: store })
    expect(
      (await createKeytarStore(store.service).set('webhook-secret:wh_path', 'whsec_path_only_3f')).ok,
    ).toBe(true)
    const body = envelope('evt_by_path')
    const answer = await post(`${b.webhookUrl}/wh_path`, body, {
      'x-service-signature': signBody('whsec_path_only_3f', body),
    })
    expect(answer.status).toBe(200)
    expect(b.services.webhooks.store.get('evt_by_path')?.endpoint).toBe('wh_path')
  })

  it('reads the keychain a bounded number of times under a flood of bad signatures, refusing them all', async () => {
    const store = countingReads(keychain())
    expect((await store.set('webhook-secret:wh_real', 'whsec_real_secret_55')).ok).toBe(true)
    const b = await start({ secrets: store })
    const readsAtStart = store.reads
    const started = Date.now()
    const statuses: number[] = []
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const body = envelope(`evt_flood_${round}_${i}`)
          return post(b.webhookUrl, body, { 'x-service-signature': signBody('whsec_attacker_guess', body) })
        }),
      )
      statuses.push(...answers.map((a) => a.status))
    }
    const elapsed = Date.now() - started
    expect(statuses).toHaveLength(400)
    expect(new Set(statuses)).toEqual(new Set([401]))
    expect(countEvents(b)).toBe(0)
    const reads = store.reads - readsAtStart
    // One read as soon as an unknown signature comes in, then at most one per interval.
    expect(reads).toBeGreaterThanOrEqual(1)
    expect(reads).toBeLessThanOrEqual(1 + Math.floor(elapsed / defaultMinRefreshIntervalMs))
  })
})

describe('webhook secrets cache', () => {
  it('shares one keychain read among concurrent refreshes and reads at most once per interval', async () => {
    const store = countingReads(createMemoryStore({ 'webhook-secret:wh_a': 'whsec_a' }))
    let now = 1_000_000
    const cache = await loadSecretsCache(observeSecrets(store), silentLogger, {
      minRefreshIntervalMs: 2_000,
      now: () => now,
    })
    expect(store.reads).toBe(1) // at start
    await store.set('webhook-secret:wh_b', 'whsec_b')

    const together = await Promise.all(Array.from({ length: 20 }, () => cache.refresh()))
    expect(together).toEqual(Array(20).fill(true))
    expect(store.reads).toBe(2)
    expect(cache.endpoints()).toEqual(['wh_a', 'wh_b'])

    now += 1_999
    expect(await cache.refresh()).toBe(false)
    expect(store.reads).toBe(2)

    now += 1
    await store.delete('webhook-secret:wh_a')
    expect(await cache.refresh()).toBe(true)
    expect(store.reads).toBe(3)
    expect(cache.endpoints()).toEqual(['wh_b'])
    cache.stop()
  })

  it('keeps a secret set in this process while a re-read of the keychain was under way', async () => {
    const memory = createMemoryStore({ 'webhook-secret:wh_a': 'whsec_a' })
    const gate: { holding: boolean; release: (() => void) | null } = { holding: false, release: null }
    const store: SecretStore = {
      ...memory,
      // The read sees the keychain as it was when it started, and answers when the test says so.
      list: async () => {
        const snapshot = await memory.list()
        if (gate.holding) await new Promise<void>((r) => (gate.release = r))
        return snapshot
      },
    }
    const observed = observeSecrets(store)
    const cache = await loadSecretsCache(observed, silentLogger)
    gate.holding = true
    const refreshed = cache.refresh()
    while (gate.release === null) await new Promise((r) => setImmediate(r))
    expect((await observed.set('webhook-secret:wh_new', 'whsec_new')).ok).toBe(true)
    while (!cache.endpoints().includes('wh_new')) await new Promise((r) => setImmediate(r))
    gate.release()
    expect(await refreshed).toBe(true)
    expect(cache.endpoints()).toEqual(['wh_a', 'wh_new'])
    expect(cache.secretOf('wh_new')).toBe('whsec_new')
    cache.stop()
  })

  it('keeps the secrets it has when the keychain cannot be read again, and says so', async () => {
    const memory = createMemoryStore({ 'webhook-secret:wh_a': 'whsec_a' })
    let locked = false
    const store: SecretStore = {
      ...memory,
      list: async () =>
        locked
          ? {
              ok: false,
              error: { code: 'keychain_unavailable', message: 'The OS keychain is not reachable (locked).' },
            }
          : memory.list(),
    }
    const cache = await loadSecretsCache(observeSecrets(store), silentLogger)
    locked = true
    expect(await cache.refresh()).toBe(true)
    expect(cache.endpoints()).toEqual(['wh_a'])
    expect(cache.problem()).toMatch(/could not be read: The OS keychain is not reachable/)
    cache.stop()
  })
})
