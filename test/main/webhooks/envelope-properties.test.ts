import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { signBody } from '../../../src/main/webhooks'
import { waitFor } from '../../support/wait'
import type { Received } from '../forward/target'
import { useTestTargets } from '../forward/target'
import { countEvents, post, secretA, useWebhookBackend } from './helpers'

/** The app side of docs/forward.md's recipe for X-Watchdesk-Event-Id. */
const forwardedId = (r: Received): string | null => {
  const value = r.headers['x-watchdesk-event-id']
  if (typeof value !== 'string') return null
  return r.headers['x-watchdesk-event-id-encoding'] === 'percent' ? decodeURIComponent(value) : value
}

/** Any Unicode text: whole code points, grapheme clusters, and UTF-16 code units (lone surrogates
 * included), control characters among them. */
const text = (minLength: number, maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', minLength, maxLength }),
    fc.string({ unit: 'binary', minLength, maxLength }),
    fc.string({ unit: 'binary-ascii', minLength, maxLength }),
    fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      minLength,
      maxLength,
    }),
  )

/** `data`: any JSON object, sometimes nested deeper than the listener takes (64 levels). */
const data = fc.oneof(
  fc.dictionary(text(0, 20), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 8 }),
  fc.tuple(fc.integer({ min: 1, max: 80 }), fc.jsonValue({ maxDepth: 1 })).map(([depth, leaf]) => {
    let value: unknown = leaf
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { [`k${i}`]: value } : [value]
    return { nested: value }
  }),
)

/** Issue 29's "find the next ones before users do", over webhook envelopes: validly signed
 * envelopes with arbitrary Unicode and sizes in ids, types and data. */
describe('validly signed envelopes of any shape', () => {
  const start = useWebhookBackend()
  const startTarget = useTestTargets()

  it('are answered 200 (stored, read back identically, forwarded) or 400 with a sentence and nothing stored; never 5xx, never a wedged forward queue', async () => {
    const app = await startTarget()
    const b = await start({ config: { forward: { targets: { app: { url: app.url } } } } })
    const stored = new Map<string, string>()
    let n = 0
    await fc.assert(
      fc.asyncProperty(text(0, 300), text(1, 250), data, async (idTail, type, payload) => {
        // A prefix keeps each run's id its own (a redelivery is another property).
        const id = `p${n++}_${idTail}`
        const body = Buffer.from(
          JSON.stringify({ id, type, created_at: '2026-11-20T10:15:00Z', data: payload }),
        )
        const before = countEvents(b)
        const answer = await post(b.webhookUrl, body, { 'x-service-signature': signBody(secretA, body) })
        expect([200, 400]).toContain(answer.status)
        if (answer.status === 400) {
          const said = (JSON.parse(answer.body) as { error?: string }).error ?? ''
          expect(said).toMatch(/\w+ \w+/)
          expect(countEvents(b)).toBe(before)
          return
        }
        const detail = b.services.webhooks.store.get(id)
        expect(detail?.id).toBe(id)
        expect(detail?.type).toBe(type)
        expect(detail?.body).toBe(body.toString('utf8'))
        stored.set(id, type)
      }),
      { numRuns: 300 },
    )
    expect(stored.size).toBeGreaterThan(100)
    // Every stored event reaches the app, whatever its id (its queue never wedged).
    await waitFor(() => app.acknowledged.size >= stored.size || undefined, 'every stored event at the app', {
      timeoutMs: 60_000,
    })
    const arrived = new Set(app.received.map(forwardedId))
    expect([...stored.keys()].filter((id) => !arrived.has(id))).toEqual([])
    expect(b.services.forward.status().worker.restartsLastMinute).toBe(0)
  }, 180_000)
})
