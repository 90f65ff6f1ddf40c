import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'
import { deliverAnswer, useRelays } from './helpers'

/** Any Unicode text: whole code points, grapheme clusters and UTF-16 code units (lone surrogates,
 * NUL and other control characters among them). */
const text = (minLength: number, maxLength: number) =>
  fc.oneof(
    fc.string({ unit: 'grapheme', minLength, maxLength }),
    fc.string({ unit: 'binary', minLength, maxLength }),
    fc.string({
      unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
      minLength,
      maxLength,
    }),
  )

/** The envelope property of test/main/webhooks/envelope-properties.test.ts on a relay over the
 * private PostgreSQL cluster, whose text type refuses what SQLite keeps (NUL, for one). */
describe('validly signed envelopes of any shape on a PostgreSQL relay', () => {
  const postgres = usePostgres()
  const relays = useRelays()

  it('are answered 200 (stored, body byte-identical in the sync page) or 400 with a sentence and nothing stored; never 5xx', async () => {
    const store = await relays.postgresStore(await postgres().createDatabase('envelopes'))
    const relay = await relays.relay(store)
    const webhooks = `${relay.listenerUrl}/webhooks`
    const stored = new Map<string, Buffer>()
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        text(0, 120),
        text(1, 120),
        fc.dictionary(text(0, 12), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
        async (idTail, type, data) => {
          const id = `p${n++}_${idTail}`
          const body = JSON.stringify({ id, type, created_at: '2026-11-20T10:15:00Z', data })
          const answer = await deliverAnswer(webhooks, id, body)
          expect([200, 400]).toContain(answer.status)
          if (answer.status === 400) {
            expect((JSON.parse(answer.text) as { error?: string }).error ?? '').toMatch(/\w+ \w+/)
            return
          }
          stored.set(id, Buffer.from(body))
        },
      ),
      { numRuns: 150 },
    )
    expect(stored.size).toBeGreaterThan(50)
    const page = unwrap(await store.readAfter('0', 1000))
    // Exactly the ones answered 200, each with its body as sent.
    expect(page.events.map((e) => e.id).sort()).toEqual([...stored.keys()].sort())
    for (const e of page.events) expect(Buffer.from(e.body, 'base64').equals(stored.get(e.id)!)).toBe(true)
  }, 180_000)
})
