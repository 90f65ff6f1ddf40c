import { request } from 'node:https'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { useTempDir } from '../../support/temp'
import { selfSignedCert } from '../../support/tunnel'
import { envelope, secretA, useWebhookBackend } from './helpers'

describe('listener over TLS', () => {
  const start = useWebhookBackend()
  const tempDir = useTempDir()

  it('serves https from listener.tls and stores a signed delivery', async () => {
    const tls = selfSignedCert(tempDir())
    const b = await start({ config: { listener: { tls } } })
    expect(b.webhookUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/webhooks$/)
    const body = envelope('evt_over_tls')
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        b.webhookUrl,
        {
          method: 'POST',
          rejectUnauthorized: false,
          headers: { 'content-type': 'application/json', 'x-service-signature': signBody(secretA, body) },
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        },
      )
      req.on('error', reject)
      req.end(body)
    })
    expect(status).toBe(200)
    expect(b.services.webhooks.store.get('evt_over_tls')?.endpoint).toBe('wh_alpha')
  })

  it('keeps the console up without the listener, naming the unreadable TLS files and the fix', async () => {
    const missing = join(tempDir(), 'nope.pem')
    const b = await start({ config: { listener: { tls: { certFile: missing, keyFile: missing } } } })
    const status = b.services.webhooks.status()
    expect(status.listening).toBe(false)
    expect(status.problem).toMatch(/TLS files cannot be read .*listener\.tls/)
    expect(b.services.webhooks.address().url).toBeNull()
  })
})
