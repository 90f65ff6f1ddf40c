import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { waitFor } from '../../support/wait'
import { signBody } from '../../../src/main/webhooks'
import { DiagnosisBudget, diagnoseSignature, forensicsLimits } from '../../../src/main/webhooks/forensics'
import { countEvents, envelope, post, secretA, secretB, useWebhookBackend } from './helpers'
import type { TestBackend } from './helpers'

/** What a delivery refused with 401 was recorded with (the Events view's rejections). */
const lastReason = async (b: TestBackend, count: number): Promise<string> => {
  const read = () =>
    b.context.db.prepare('SELECT reason FROM webhook_rejections ORDER BY seq').all() as { reason: string }[]
  const rows = await waitFor(() => read().length === count && read(), `${count} rejections recorded`, {
    timeoutMs: 20_000,
  })
  return rows.at(-1)!.reason
}

/** The envelope as the service signed it (compact JSON, with a URL and a non-ASCII name inside). */
const original = envelope('evt_forensics_1', 'funding.completed', {
  id: 'fund_1',
  note: 'Zürich → https://example.com/a/b',
})

describe('signature forensics: a refused delivery says what changed its bytes', () => {
  const start = useWebhookBackend()

  it('names a body re-serialized after signing, and refuses it all the same', async () => {
    const b = await start()
    const rewritten = JSON.stringify(JSON.parse(original), null, 2)
    const answer = await post(b.webhookUrl, rewritten, { 'x-service-signature': signBody(secretA, original) })
    expect(answer.status).toBe(401)
    expect(await lastReason(b, 1)).toMatch(/re-serialized after signing.*parses and re-writes JSON/)
    expect(countEvents(b)).toBe(0)
  })

  it('names a trailing newline added on the way', async () => {
    const b = await start()
    const answer = await post(b.webhookUrl, `${original}\n`, {
      'x-service-signature': signBody(secretA, original),
    })
    expect(answer.status).toBe(401)
    expect(await lastReason(b, 1)).toMatch(/trailing newline was added/)
  })

  it('names a digest sent as base64 instead of hex', async () => {
    const b = await start()
    const base64 = createHmac('sha256', secretA).update(original).digest('base64')
    const answer = await post(b.webhookUrl, original, { 'x-service-signature': base64 })
    expect(answer.status).toBe(401)
    expect(await lastReason(b, 1)).toMatch(/digest arrived as base64.*lowercase hex/)
    expect(countEvents(b)).toBe(0)
  })

  it('names the secret this console held before a rotation, with the endpoint', async () => {
    const b = await start()
    await b.context.secrets.set('webhook-secret:wh_alpha', 'whsec_rotated_new_0001')
    // The listener took the new secret once a delivery signed with it is stored.
    const fresh = envelope('evt_new_secret')
    await waitFor(
      async () =>
        (
          await post(`${b.webhookUrl}/wh_alpha`, fresh, {
            'x-service-signature': signBody('whsec_rotated_new_0001', fresh),
          })
        ).status === 200,
      'the new secret in use',
      { timeoutMs: 20_000 },
    )
    const stored = countEvents(b)
    const old = await post(`${b.webhookUrl}/wh_alpha`, original, {
      'x-service-signature': signBody(secretA, original),
    })
    expect(old.status).toBe(401)
    expect(await lastReason(b, 1)).toMatch(
      /secret this console held before for endpoint wh_alpha \(retired \d+ min ago\)/,
    )
    expect(countEvents(b)).toBe(stored)
  })

  it("names another endpoint's secret used on this endpoint's path", async () => {
    const b = await start()
    const answer = await post(`${b.webhookUrl}/wh_alpha`, original, {
      'x-service-signature': signBody(secretB, original),
    })
    expect(answer.status).toBe(401)
    expect(await lastReason(b, 1)).toMatch(
      /for \/webhooks\/wh_alpha: it was signed with endpoint wh_beta's secret/,
    )
  })

  it('keeps "signature does not match" for an unrelated wrong secret', async () => {
    const b = await start()
    const answer = await post(b.webhookUrl, original, {
      'x-service-signature': signBody('whsec_unrelated_9999', original),
    })
    expect(answer.status).toBe(401)
    expect(await lastReason(b, 1)).toBe('signature does not match')
  })
})

describe('signature forensics, the pure check', () => {
  const current = [{ kind: 'current' as const, endpoint: 'wh_a', secret: Buffer.from(secretA) }]

  it('names a BOM and a charset change', () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(original)])
    expect(diagnoseSignature(bom, signBody(secretA, original), current, null)?.cause).toBe('bom-added')
    const zurich = envelope('evt_latin1', 'funding.completed', { note: 'Zürich' })
    const reencoded = Buffer.from(zurich, 'latin1')
    expect(diagnoseSignature(reencoded, signBody(secretA, zurich), current, null)?.cause).toBe('charset')
    const mojibake = Buffer.from(Buffer.from(original).toString('latin1'), 'utf8')
    expect(diagnoseSignature(mojibake, signBody(secretA, original), current, null)?.cause).toBe('charset')
  })

  it('names escaped slashes and escaped non-ASCII as a re-serialization', () => {
    const signedForm = JSON.stringify(JSON.parse(original)).replace(/\//g, '\\/')
    expect(
      diagnoseSignature(Buffer.from(original), signBody(secretA, signedForm), current, null)?.cause,
    ).toBe('reserialized')
  })

  it('spends at most its byte budget on one large body', () => {
    const big = Buffer.alloc(forensicsLimits.maxHashedBytes, 0x61)
    const started = process.cpuUsage()
    expect(diagnoseSignature(big, signBody('whsec_other', 'x'), current, null)).toBeNull()
    expect(process.cpuUsage(started).user).toBeGreaterThan(0)
  })

  it('takes at most its burst of diagnoses, then refills with time', () => {
    let now = 0
    const budget = new DiagnosisBudget(2, 3, () => now)
    expect([budget.take(), budget.take(), budget.take(), budget.take()]).toEqual([true, true, true, false])
    now += 500
    expect(budget.take()).toBe(true)
    expect(budget.take()).toBe(false)
  })
})
