import { describe, expect, it } from 'vitest'
import { observeSecrets } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import { useTestKeychain } from '../../support/keychain'
import { envelope, post, useWebhookBackend } from './helpers'

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
    await new Promise((r) => setTimeout(r, 100))
    expect((await post(b.webhookUrl, body, headers)).status).toBe(200)
    expect(b.services.webhooks.store.get('evt_new_endpoint')?.endpoint).toBe('wh_later')
    expect(b.services.webhooks.status().endpoints).toEqual(['wh_later'])
    expect(JSON.stringify(b.services.webhooks.status())).not.toContain('whsec_created_later_42')

    expect((await b.context.secrets.delete('webhook-secret:wh_later')).ok).toBe(true)
    await new Promise((r) => setTimeout(r, 100))
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
})
