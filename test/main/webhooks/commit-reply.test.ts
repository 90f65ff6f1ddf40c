import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { createCommitTransaction } from '../../../src/main/webhooks/commit-transaction'
import { inThreadCommitter, workerCommitter } from '../../../src/main/webhooks/committer'
import type { StoredItem } from '../../../src/main/webhooks/committer'
import { storedSummarySql, upsertEventSql, upsertSourcedEventSql } from '../../../src/main/webhooks/sql'
import type { CommittedRow, EventParams } from '../../../src/main/webhooks/sql'
import { eventParams, toSummary } from '../../../src/main/webhooks/store'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

const tempDir = useTempDir()
const latestSchema = () => unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))

const delivery = (id: string, type: string, data: Record<string, unknown>, at = 1_000): EventParams =>
  eventParams({
    envelope: { id, type, created_at: '2026-11-28T09:00:00Z', data },
    body: Buffer.from(JSON.stringify({ id, type, data })),
    endpoint: 'wh_a',
    at,
    remote: '127.0.0.1',
  })

/** The summary as the store reads the row back (what every later read shows). */
const readBack = (db: ReturnType<typeof latestSchema>, seq: number) =>
  toSummary(db.prepare(storedSummarySql).get(seq) as CommittedRow)

const summaryOf = (item: StoredItem | undefined) => {
  if (!item?.ok) throw new Error(`not stored: ${JSON.stringify(item)}`)
  return item.summary
}

/** Issue 35: the commit worker answered every delivery with its whole summary row (fifteen columns,
 * the funding data among them), built in the worker and copied to the listener's thread; a first
 * delivery's row is the delivery the listener already holds. */
describe("the commit's answer", () => {
  it('names a first delivery by its seq alone and sends a redelivery its row as stored', () => {
    const db = latestSchema()
    const transaction = createCommitTransaction(db)
    const first = delivery('evt_reply_1', 'funding.completed', { id: 'fund_1' })
    const [reply] = transaction.commit([{ id: 7, events: [first], rejections: [] }])
    expect(reply).toEqual({ id: 7, ok: true, insertedFrom: 1, count: 1 })

    const again = { ...first, body: Buffer.from('{"other":"body"}'), at: 2_000 }
    const [redelivered] = transaction.commit([{ id: 8, events: [again], rejections: [] }])
    const stored = db.prepare(storedSummarySql).get(1) as CommittedRow
    expect(redelivered).toEqual({ id: 8, ok: true, items: [{ ok: true, row: { ...stored, conflicted: 1 } }] })
    expect(stored).toMatchObject({ deliveries: 2, last_delivery_at: 2_000, conflicts: 1 })
    db.close()
  })

  it('answers a group of first deliveries with its first seq and count, and a group with a redelivery item by item', () => {
    const db = latestSchema()
    db.pragma('synchronous = OFF')
    const transaction = createCommitTransaction(db)
    const group = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => delivery(`evt_group_${from + i}`, 'card.frozen', { id: `c_${i}` }))
    const [firsts] = transaction.commit([{ id: 1, events: group(0, 40), rejections: [] }])
    // One object crosses the thread boundary for the 40, not one per delivery.
    expect(firsts).toEqual({ id: 1, ok: true, insertedFrom: 1, count: 40 })
    const [mixed] = transaction.commit([{ id: 2, events: [...group(40, 2), ...group(0, 1)], rejections: [] }])
    expect(mixed).toMatchObject({
      id: 2,
      ok: true,
      items: [{ inserted: 41 }, { inserted: 42 }, { ok: true, row: { id: 'evt_group_0', deliveries: 2 } }],
    })
    db.close()
  })

  it("gives a first delivery the summary its stored row reads back as, whatever the event's type, data id, source or conflicts", async () => {
    const db = latestSchema()
    // What is read back is the question here, not durability: no fsync per commit.
    db.pragma('synchronous = OFF')
    const committer = inThreadCommitter(db)
    let n = 0
    // Funding types in any ASCII case (SQLite's LIKE folds it), others; data ids with lone
    // surrogates (stored as U+FFFD), missing or not strings; events synced from a relay.
    const type = fc.oneof(
      fc.constantFrom('funding.completed', 'FUNDING.failed', 'Funding.x', 'fundingX', 'card.frozen'),
      fc.string({ maxLength: 30 }),
    )
    const dataId = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.string({ unit: fc.integer({ min: 0xd7f0, max: 0xdfff }).map((c) => String.fromCharCode(c)) }),
      fc.constant(undefined),
      fc.integer(),
    )
    const origin = fc.option(
      fc.record({ source: fc.constantFrom('eu', ''), conflicts: fc.nat(3), cursor: fc.constant('9') }),
    )
    // Funding amounts as parseEnvelope may hand them over: any double (-0 is stored as 0, an
    // infinity as null), or not a number at all; the currencies present or not.
    const amount = fc.oneof(
      fc.double(),
      fc.integer(),
      fc.constantFrom(-0, Infinity, 0.1),
      fc.string({ maxLength: 3 }),
    )
    const funding = fc.record(
      { amount, currency: fc.constant('USD'), target_amount: amount, target_currency: fc.constant('USDC') },
      { requiredKeys: [] },
    )
    const event = fc.tuple(type, dataId, origin, funding)
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 20 }), async (events) => {
        const params = events.map(([t, id, synced, money]): EventParams => {
          const data = id === undefined ? { ...money } : { ...money, id }
          const e = delivery(`evt_p${n++}`, t.length > 0 ? t : 'x', data, n)
          return synced ? { ...e, ...synced } : e
        })
        const result = await committer.commit(params, [])
        if (!result.ok) throw new Error(result.failure.message)
        for (const item of result.items) {
          const summary = summaryOf(item)
          expect(summary).toEqual(readBack(db, summary.seq))
          expect(item).toMatchObject({ duplicate: false, conflict: false })
        }
      }),
      { numRuns: 12 },
    )
    db.close()
  })

  it("makes a first delivery's funding line from the data the envelope's parse gave, without parsing the stored data again", async () => {
    const db = latestSchema()
    db.pragma('synchronous = OFF')
    const committer = inThreadCommitter(db)
    const events = Array.from({ length: 8 }, (_, i) =>
      delivery(`evt_line_${i}`, 'funding.completed', {
        id: `fund_${i}`,
        amount: 1000 + i,
        currency: 'USD',
        target_amount: 998.75,
        target_currency: 'USDC',
      }),
    )
    const parse = vi.spyOn(JSON, 'parse')
    const result = await committer.commit(events, [])
    const parsed = parse.mock.calls.length
    parse.mockRestore()
    if (!result.ok) throw new Error(result.failure.message)
    expect(result.items.map((item) => summaryOf(item).fundingLine)).toEqual(
      events.map((_, i) => `${(1000 + i).toLocaleString('en-US')} USD → 998.75 USDC`),
    )
    // One parse per delivery before (the stored data text, for its funding line): none now.
    expect(parsed).toBe(0)
    for (const item of result.items) expect(summaryOf(item)).toEqual(readBack(db, summaryOf(item).seq))
    db.close()
  })

  it('stores a first delivery with the plain insert and runs the counting upsert only for a redelivery', () => {
    const db = latestSchema()
    db.pragma('synchronous = OFF')
    // Every statement's executions, by its SQL: the upsert (its RETURNING buffers the row it returns)
    // cost the worker about a third of each row, and a first delivery needs none of it.
    const runs = new Map<string, number>()
    const counted = new Proxy(db, {
      get(target, key) {
        if (key !== 'prepare') return Reflect.get(target, key, target) as unknown
        return (sql: string) => {
          const statement = target.prepare(sql)
          return new Proxy(statement, {
            get(s, method) {
              const value = Reflect.get(s, method, s) as unknown
              if (typeof value !== 'function') return value
              return (...args: unknown[]) => {
                if (method === 'run' || method === 'get') runs.set(sql, (runs.get(sql) ?? 0) + 1)
                return (value as (...a: unknown[]) => unknown).apply(s, args)
              }
            },
          })
        }
      },
    })
    const transaction = createCommitTransaction(counted)
    const upserts = () => (runs.get(upsertEventSql) ?? 0) + (runs.get(upsertSourcedEventSql) ?? 0)
    const first = delivery('evt_plain_1', 'card.frozen', { id: 'card_1' })
    const synced = { ...delivery('evt_plain_2', 'card.frozen', { id: 'card_2' }), source: 'eu', conflicts: 2 }
    const [stored] = transaction.commit([{ id: 1, events: [first, synced], rejections: [] }])
    expect(stored).toEqual({ id: 1, ok: true, insertedFrom: 1, count: 2 })
    expect(upserts()).toBe(0)
    expect(db.prepare('SELECT source, conflicts FROM events WHERE seq = 2').get()).toEqual({
      source: 'eu',
      conflicts: 2,
    })

    // A redelivery, and the same id twice in one group: each counted by the upsert, once.
    const again = { ...first, at: 2_000 }
    const third = delivery('evt_plain_3', 'card.frozen', { id: 'card_3' })
    const [counts] = transaction.commit([
      { id: 2, events: [again, third, { ...third, at: 3_000 }], rejections: [] },
    ])
    expect(counts).toMatchObject({
      ok: true,
      items: [{ row: { seq: 1, deliveries: 2 } }, { inserted: 3 }, { row: { seq: 3, deliveries: 2 } }],
    })
    expect(upserts()).toBe(2)
    db.close()
  })

  it('through the commit worker: a first delivery and a conflicting redelivery summarised as stored', async () => {
    const db = latestSchema()
    const committer = workerCommitter(db.name, { grouping: null })
    try {
      const funding = {
        id: 'fund_w',
        status: 'completed',
        amount: 1000,
        currency: 'USD',
        target_amount: 998.75,
        target_currency: 'USDC',
      }
      const first = delivery('evt_worker_1', 'funding.completed', funding)
      const other = delivery('evt_worker_2', 'card.frozen', { id: 'card_1' })
      const result = await committer.commit([first, other], [])
      if (!result.ok) throw new Error(result.failure.message)
      const [a, b] = result.items.map(summaryOf)
      expect(a).toEqual(readBack(db, a!.seq))
      expect(b).toEqual(readBack(db, b!.seq))
      expect(a!.fundingLine).not.toBeNull()

      const again = await committer.commit([{ ...first, body: Buffer.from('{}'), at: 5_000 }], [])
      if (!again.ok) throw new Error(again.failure.message)
      expect(again.items[0]).toMatchObject({ ok: true, duplicate: true, conflict: true })
      expect(summaryOf(again.items[0])).toEqual(readBack(db, a!.seq))
      expect(summaryOf(again.items[0])).toMatchObject({
        deliveries: 2,
        lastDeliveryAt: 5_000,
        conflict: true,
      })
    } finally {
      await committer.close()
      db.close()
    }
  })
})
