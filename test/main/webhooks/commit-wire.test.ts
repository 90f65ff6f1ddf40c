import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { packEvents, unpackEvents } from '../../../src/main/webhooks/commit-wire'
import type { EventParams } from '../../../src/main/webhooks/sql'

/** Any UTF-16 text, lone surrogates and NUL included: the packing must not care what strings hold. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 40 }),
)
const bytes = fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a))

/** An event as the listener hands it over (no origin fields) or as a source syncs it. */
const event: fc.Arbitrary<EventParams> = fc
  .record({
    id: text,
    type: text,
    grp: text,
    created_at: text,
    created_ms: fc.option(fc.integer({ min: -8.64e15, max: 8.64e15 })),
    at: fc.double({ noNaN: true }),
    endpoint: text,
    data_id: fc.option(text),
    body: bytes,
    data: text,
    remote: fc.option(text),
  })
  .chain((e) =>
    fc.oneof(
      fc.constant(e),
      fc
        .record({
          conflicts: fc.nat(),
          conflict_body: fc.option(bytes),
          source: text,
          cursor: text,
          last: fc.constantFrom(0 as const, 1 as const),
        })
        .map((origin) => ({ ...e, ...origin })),
    ),
  )

/** What a worker would receive: the packed group structured-cloned with its buffer transferred. */
const acrossThreads = (events: EventParams[]) => {
  const packed = packEvents(events)
  const received = structuredClone(packed, { transfer: [packed.buffer] })
  return { packed, events: unpackEvents(received) }
}

describe("a commit's events on the way to the commit worker", () => {
  it('arrive as they were given: every field, null kept null, an absent field absent, bytes byte for byte', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), (events) => {
        const { events: received } = acrossThreads(events)
        expect(received).toHaveLength(events.length)
        received.forEach((r, i) => {
          const sent = events[i]!
          expect(Object.keys(r).sort()).toEqual(Object.keys(sent).sort())
          expect(r).toEqual(sent)
          expect(Buffer.isBuffer(r.body)).toBe(true)
        })
      }),
      { numRuns: 300 },
    )
  })

  it('go as one buffer that moves to the worker rather than being copied', () => {
    const events = [0, 1, 2].map((i): EventParams => ({
      id: `evt_${i}`,
      type: 'funding.completed',
      grp: 'business',
      created_at: '2026-11-28T09:00:00Z',
      created_ms: 1,
      at: 2,
      endpoint: 'wh_a',
      data_id: null,
      body: Buffer.from(`{"id":"evt_${i}"}`),
      data: '{}',
      remote: '127.0.0.1',
    }))
    const { packed, events: received } = acrossThreads(events)
    expect(packed.buffer.byteLength).toBe(0) // detached here: it was transferred
    expect(new Set(received.map((e) => e.body.buffer)).size).toBe(1)
  })
})
