import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { countEvents, post, secretA, useWebhookBackend } from './helpers'

/** A thousand malformed, oversized and odd bodies, signed and unsigned: the listener never
 * crashes, always answers, and stores a row only for a signed envelope it answered 200. */
describe('listener under fuzzed input', () => {
  const start = useWebhookBackend()

  it('answers every fuzzed delivery with 200, 400, 401 or 413 and stores only signed envelopes', async () => {
    const b = await start({ config: { listener: { maxBodyBytes: 4096 } } })
    const envelopeLike = fc.record(
      {
        id: fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.constant(null)),
        type: fc.oneof(
          fc.constantFrom('funding.completed', 'card.frozen', 'x'),
          fc.string({ maxLength: 30 }),
        ),
        created_at: fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.string({ maxLength: 10 }),
        ),
        data: fc.oneof(fc.object({ maxDepth: 2 }), fc.array(fc.integer()), fc.constant(null)),
      },
      { requiredKeys: [] },
    )
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 600 }).map((a) => Buffer.from(a)),
      fc.string({ maxLength: 300 }).map((s) => Buffer.from(s)),
      fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))),
      envelopeLike.map((e) => Buffer.from(JSON.stringify(e))),
      fc.integer({ min: 4097, max: 20_000 }).map((n) => Buffer.alloc(n, 0x7b)),
    )
    const signing = fc.constantFrom('right', 'wrong', 'none', 'garbage')
    let stored = 0
    await fc.assert(
      fc.asyncProperty(body, signing, async (bytes, how) => {
        const headers: Record<string, string> =
          how === 'right'
            ? { 'x-service-signature': signBody(secretA, bytes) }
            : how === 'wrong'
              ? { 'x-service-signature': signBody('whsec_wrong_secret', bytes) }
              : how === 'garbage'
                ? { 'x-service-signature': 'zz' }
                : {}
        const answer = await post(b.webhookUrl, bytes, headers)
        expect([200, 400, 401, 413]).toContain(answer.status)
        if (bytes.length > 4096) expect(answer.status).toBe(413)
        else if (how !== 'right') expect(answer.status).toBe(401)
        if (answer.status === 200) stored++
      }),
      // A thousand new inputs each run (no fixed seed: every run draws others, so what the
      // suite has tried grows run by run); 2,500 cost 2.5× the time for the same checks.
      { numRuns: 1000 },
    )
    const distinct = b.context.db
      .prepare('SELECT count(*) AS n, coalesce(sum(deliveries), 0) AS d FROM events')
      .get() as {
      n: number
      d: number
    }
    expect(distinct.d).toBe(stored)
    expect(countEvents(b)).toBeLessThanOrEqual(stored)
    // Still healthy afterwards.
    const ok = JSON.stringify({
      id: 'evt_after',
      type: 'report.ready',
      created_at: '2026-01-01T00:00:00Z',
      data: {},
    })
    expect((await post(b.webhookUrl, ok, { 'x-service-signature': signBody(secretA, ok) })).status).toBe(200)
  }, 120_000)
})
