import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { EventSummary } from '../../../src/shared/contract/events'
import type { PushMessage } from '../../../src/shared/contract'
import { eventsPerPiece, pushFrame } from '../../../src/main/transport/push-frame'
import { groupOf } from '../../../src/shared/events'

/** A funding summary as the listener pushes it (its "→" makes the JSON a two-byte string). */
const summary = (i: number, fundingLine: string | null = '1,000 USD → 998.75 USDC'): EventSummary => ({
  seq: 1000 + i,
  id: `evt_${i}`,
  type: 'funding.completed',
  group: groupOf('funding.completed'),
  createdAt: '2026-11-28T23:00:00.000Z',
  createdAtMs: 1_795_993_200_000,
  receivedAt: 1_795_993_200_000 + i,
  lastDeliveryAt: 1_795_993_200_000 + i,
  deliveries: 1,
  endpoint: 'wh_main',
  dataId: `fund_${i}`,
  fundingLine,
  conflict: false,
  source: null,
})

const appended = (events: EventSummary[], omitted = 0): PushMessage => ({
  topic: 'events.appended',
  payload: { events, omitted },
})

describe('the push stream frame', () => {
  it('writes a push of 500 summaries in pieces of at most 64, none of them a large string', () => {
    const message = appended(
      Array.from({ length: 500 }, (_, i) => summary(i)),
      12,
    )
    const pieces = pushFrame(message)
    // V8 allocates a string over 128 kB (here, ~340 kB as one) in its large-object space.
    for (const piece of pieces) expect(piece.length * 2).toBeLessThan(128 * 1024)
    expect(pieces.length).toBe(2 + Math.ceil(500 / eventsPerPiece))
    expect(pieces.join('')).toBe(`data: ${JSON.stringify(message)}\n\n`)
  })

  it('is the same text as the message serialised whole, whatever the events, the count and the topic', () => {
    const line = fc.option(fc.string({ unit: 'binary' }), { nil: null })
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(), line), { maxLength: 2 * eventsPerPiece + 5 }),
        fc.nat(),
        (rows, omitted) => {
          const message = appended(
            rows.map(([i, l]) => summary(i, l)),
            omitted,
          )
          expect(pushFrame(message).join('')).toBe(`data: ${JSON.stringify(message)}\n\n`)
        },
      ),
      { numRuns: 12 },
    )
    const other: PushMessage = { topic: 'app.heartbeat', payload: { at: 5 } }
    expect(pushFrame(other)).toEqual([`data: ${JSON.stringify(other)}\n\n`])
  })
})
