import fc from 'fast-check'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { bigintArray, byteaArray, textArray } from '../../../src/main/relay/pg-binary-arrays'
import { pgConfigOf } from '../../../src/main/relay/pg-store'
import { unwrap } from '../../../src/shared/result'
import { usePostgres } from '../../support/postgres'

/** Any JavaScript string: whole code points, grapheme clusters and UTF-16 code units (lone
 * surrogates, NUL and other control characters among them). */
const anyText = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
)

/** What PostgreSQL made of a parameter, or the SQLSTATE it refused it with. */
async function received(client: pg.Client, cast: string, param: unknown): Promise<unknown> {
  try {
    const { rows } = await client.query<{ v: unknown }>(`SELECT $1::${cast} AS v`, [param])
    return { value: rows[0]!.v }
  } catch (error) {
    return { refused: (error as { code?: string }).code }
  }
}

/** The group statement's arrays go in PostgreSQL's binary format (src/main/relay/pg-binary-arrays.ts)
 * instead of node-postgres's quoted text literals: PostgreSQL must read exactly what the text
 * literal said, and refuse what it refused (a NUL in a text: 22021, that delivery alone). */
describe('group statement arrays in binary', () => {
  const postgres = usePostgres()

  it('reach PostgreSQL as the text literals did, element for element, NULLs and refusals included', async () => {
    const client = new pg.Client(unwrap(pgConfigOf(await postgres().createDatabase('binary_arrays'))))
    await client.connect()
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.option(anyText, { nil: null }), { maxLength: 12 }),
          fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 12 }),
          fc.array(
            fc.option(
              fc.maxSafeInteger().chain((n) => fc.constantFrom(n, -n)),
              { nil: null },
            ),
            {
              maxLength: 12,
            },
          ),
          async (texts, bodies, numbers) => {
            expect(await received(client, 'text[]', textArray(texts))).toEqual(
              await received(client, 'text[]', texts),
            )
            const buffers = bodies.map((b) => Buffer.from(b))
            expect(await received(client, 'bytea[]', byteaArray(buffers))).toEqual(
              await received(client, 'bytea[]', buffers),
            )
            expect(await received(client, 'bigint[]', bigintArray(numbers))).toEqual(
              await received(client, 'bigint[]', numbers),
            )
          },
        ),
        { numRuns: 120 },
      )
      // A number without an exact int8 form stays the text literal PostgreSQL refuses (22P02).
      expect(Buffer.isBuffer(bigintArray([1, 1.5]))).toBe(false)
      expect(await received(client, 'bigint[]', bigintArray([1, 1.5]))).toEqual({ refused: '22P02' })
      // Sent in binary, not as text (what the change is for).
      expect(Buffer.isBuffer(textArray(['a']))).toBe(true)
      expect(Buffer.isBuffer(bigintArray([Date.now()]))).toBe(true)
    } finally {
      await client.end()
    }
  }, 120_000)
})
