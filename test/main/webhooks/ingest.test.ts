import { join } from 'node:path'
import { describe, expect, it, onTestFinished, vi } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { silentLogger } from '../../../src/main/log'
import fc from 'fast-check'
import { createBatchedPublisher, createIngest, groupWindowMs } from '../../../src/main/webhooks/ingest'
import { defaultGrouping, inThreadCommitter, workerCommitter } from '../../../src/main/webhooks/committer'
import type { Committer } from '../../../src/main/webhooks/committer'
import { createEventStore } from '../../../src/main/webhooks'
import { eventParams } from '../../../src/main/webhooks/store'
import type { EventSummary } from '../../../src/shared/contract/events'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

const incoming = (id: string) => ({
  envelope: { id, type: 'payout.completed', created_at: '2026-11-20T10:00:00Z', data: { id: `po_${id}` } },
  body: Buffer.from(`{"id":"${id}"}`),
  endpoint: 'wh_a',
  at: Date.now(),
})

describe('group commit', () => {
  const tempDir = useTempDir()
  const openStore = () => {
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    return { db, store: createEventStore(db) }
  }

  it('commits deliveries that arrive together in one transaction and answers each', async () => {
    const { db } = openStore()
    const batches: number[] = []
    const inThread = inThreadCommitter(db)
    const counting: Committer = {
      ...inThread,
      commit: (batch, r) => (batches.push(batch.length), inThread.commit(batch, r)),
    }
    const ingest = createIngest(counting, silentLogger, () => {})
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => ingest.commit(incoming(`evt_${i}`))),
    )
    expect(outcomes.every((o) => o.ok)).toBe(true)
    expect(batches).toEqual([50])
    expect((db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(50)
    db.close()
  })

  it("keeps at most the committer's calls at once outstanding: what arrives meanwhile goes in one call when one ends", async () => {
    const { db } = openStore()
    const inThread = inThreadCommitter(db)
    const calls: { size: number; release: () => void }[] = []
    const held: Committer = {
      ...inThread,
      callsAtOnce: 1,
      commit: (batch, r) =>
        new Promise((resolve) => {
          calls.push({ size: batch.length, release: () => void inThread.commit(batch, r).then(resolve) })
        }),
    }
    const ingest = createIngest(held, silentLogger, () => {})
    const first = ingest.commit(incoming('evt_first'))
    await vi.waitFor(() => expect(calls).toHaveLength(1), { timeout: 15_000 })
    // Three more, in three turns of the event loop, while the first call is outstanding.
    const later: ReturnType<typeof ingest.commit>[] = []
    for (const id of ['evt_2', 'evt_3', 'evt_4']) {
      later.push(ingest.commit(incoming(id)))
      await new Promise((r) => setImmediate(r))
    }
    expect(calls.map((c) => c.size)).toEqual([1])
    calls[0]!.release()
    expect((await first).ok).toBe(true)
    await vi.waitFor(() => expect(calls.map((c) => c.size)).toEqual([1, 3]), { timeout: 15_000 })
    calls[1]!.release()
    expect((await Promise.all(later)).every((o) => o.ok)).toBe(true)
    db.close()
  })

  it('counts a duplicate inside the same batch as a second delivery, not a second row', async () => {
    const { db, store } = openStore()
    const ingest = createIngest(inThreadCommitter(db), silentLogger, () => {})
    const [first, second] = await Promise.all([
      ingest.commit(incoming('evt_same')),
      ingest.commit(incoming('evt_same')),
    ])
    expect(first!.ok && first!.value.duplicate).toBe(false)
    expect(second!.ok && second!.value.duplicate).toBe(true)
    expect(store.get('evt_same')?.deliveries).toBe(2)
    db.close()
  })

  it('answers with an error value, not 200, when the commit fails', async () => {
    const { db } = openStore()
    const ingest = createIngest(inThreadCommitter(db), silentLogger, () => {})
    db.close()
    const outcome = await ingest.commit(incoming('evt_lost'))
    expect(outcome.ok).toBe(false)
    if (!outcome.ok) expect(outcome.error.code).toBe('unavailable')
  })

  it('commits in a worker thread: what arrives during a commit goes into the next one, and all of it is on disk', async () => {
    const { db, store } = openStore()
    const worker = workerCommitter(db.name)
    const batches: number[] = []
    const counting: Committer = {
      ...worker,
      commit: (batch, r) => (batches.push(batch.length), worker.commit(batch, r)),
    }
    const committed: string[] = []
    const ingest = createIngest(counting, silentLogger, (s) => committed.push(...s.map((e) => e.summary.id)))
    const first = Array.from({ length: 30 }, (_, i) => ingest.commit(incoming(`evt_w${i}`)))
    // These arrive while the first batch is in the worker: they must wait for the next transaction.
    await new Promise((r) => setImmediate(r))
    const second = Array.from({ length: 30 }, (_, i) => ingest.commit(incoming(`evt_w${30 + i}`)))
    ingest.reject({
      at: 1,
      path: '/webhooks',
      status: 401,
      reason: 'missing signature',
      size: 3,
      remote: '127.0.0.1',
    })
    const outcomes = await Promise.all([...first, ...second])
    expect(outcomes.every((o) => o.ok)).toBe(true)
    expect(batches).toEqual([30, 30])
    expect(committed).toHaveLength(60)
    await ingest.drain()
    await worker.close()
    expect((db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n).toBe(60)
    expect(store.recentRejections(5)).toHaveLength(1)
    db.close()
  })

  it('gives each batch its own rows when the worker commits batches queued behind each other together', async () => {
    const { db, store } = openStore()
    const worker = workerCommitter(db.name)
    const batches = Array.from({ length: 5 }, (_, b) =>
      Array.from({ length: 3 + b }, (_, i) => incoming(`evt_q${b}_${i}`)),
    )
    // Posted without waiting: the worker takes whatever is queued into one transaction.
    const results = await Promise.all(batches.map((batch) => worker.commit(batch.map(eventParams), [])))
    expect(results.map((r) => (r.ok ? r.items.map((i) => i.ok && i.summary.id) : r.failure))).toEqual(
      batches.map((batch) => batch.map((e) => e.envelope.id)),
    )
    await worker.close()
    expect(store.count({}, 1000).count).toBe(25)
    db.close()
  })

  it('answers with an error value when the worker cannot write', async () => {
    const { db } = openStore()
    const worker = workerCommitter(db.name)
    db.exec('DROP TABLE events')
    const ingest = createIngest(worker, silentLogger, () => {})
    const outcome = await ingest.commit(incoming('evt_nowhere'))
    expect(outcome.ok).toBe(false)
    await worker.close()
    db.close()
  })

  it('coalesces pushes within the window and keeps the newest when a window overflows', () => {
    vi.useFakeTimers()
    onTestFinished(() => void vi.useRealTimers())
    const published: { events: EventSummary[]; omitted: number }[] = []
    const publisher = createBatchedPublisher((p) => published.push(p), 30, 10)
    const summary = (i: number) => ({ id: `evt_${i}` }) as EventSummary
    publisher.add(Array.from({ length: 25 }, (_, i) => summary(i)))
    vi.advanceTimersByTime(29)
    publisher.add([summary(25)])
    expect(published).toHaveLength(0) // still inside the window
    vi.advanceTimersByTime(1)
    expect(published).toHaveLength(1)
    expect(published[0]!.omitted).toBe(16)
    expect(published[0]!.events.map((e) => e.id).at(-1)).toBe('evt_25')
  })
})

describe('group commit adapted to the offered rate', () => {
  const tempDir = useTempDir()
  // The commit worker's own grouping: what the listener does at these rates.
  const grouping = defaultGrouping

  /** Deliveries one per `gapMs` of fake time into a grouping committer; each call's size and how
   * long (fake ms) its first delivery had waited when the call was made. */
  async function offer(count: number, gapMs: number): Promise<{ size: number; waitedMs: number }[]> {
    vi.useFakeTimers()
    onTestFinished(() => void vi.useRealTimers())
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    onTestFinished(() => void db.close())
    const inThread = inThreadCommitter(db)
    const arrivals = new Map<string, number>()
    const calls: { size: number; waitedMs: number }[] = []
    const grouped: Committer = {
      ...inThread,
      callsAtOnce: 1,
      grouping,
      commit: (batch, r) => {
        calls.push({ size: batch.length, waitedMs: Date.now() - arrivals.get(batch[0]!.id)! })
        return inThread.commit(batch, r)
      },
    }
    const ingest = createIngest(grouped, silentLogger, () => {}, undefined, { now: () => Date.now() })
    const outcomes: ReturnType<typeof ingest.commit>[] = []
    for (let i = 0; i < count; i++) {
      arrivals.set(`evt_${i}`, Date.now())
      outcomes.push(ingest.commit(incoming(`evt_${i}`)))
      await vi.advanceTimersByTimeAsync(gapMs)
    }
    await vi.runAllTimersAsync()
    expect((await Promise.all(outcomes)).every((o) => o.ok)).toBe(true)
    expect(calls.reduce((n, c) => n + c.size, 0)).toBe(count)
    return calls
  }

  it('shares a transaction among about eight deliveries at 1,000/s, none held longer than the longest wait (8 ms)', async () => {
    const calls = await offer(300, 1)
    // Once the rate is known (the first ~50), groups of about maxWaitMs worth of deliveries: 5–6
    // with the 5 ms window of sessions 8–9, about 8–9 with 8 ms.
    const later = calls.slice(-30)
    expect(later.reduce((n, c) => n + c.size, 0) / later.length).toBeGreaterThanOrEqual(7)
    expect(Math.max(...calls.map((c) => c.waitedMs))).toBeLessThanOrEqual(grouping.maxWaitMs + 1)
    // A third of the 25 ms p99 budget at most: the rest is the request's own time under load.
    expect(grouping.maxWaitMs).toBeLessThanOrEqual(25 / 3)
  })

  it('sends each delivery at once at a low rate (one per 50 ms): waiting would save nothing', async () => {
    const calls = await offer(40, 50)
    expect(calls.map((c) => c.size)).toEqual(Array(40).fill(1))
    expect(Math.max(...calls.map((c) => c.waitedMs))).toBe(0)
  })

  it('sends a full group (targetPerCommit) at once, without waiting out its window', async () => {
    vi.useFakeTimers()
    onTestFinished(() => void vi.useRealTimers())
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    onTestFinished(() => void db.close())
    const inThread = inThreadCommitter(db)
    const sizes: number[] = []
    const grouped: Committer = {
      ...inThread,
      grouping,
      commit: (batch, r) => (sizes.push(batch.length), inThread.commit(batch, r)),
    }
    // 0.1 ms apart on the grouping's clock (a 3.1 ms window), while the timers' clock stands still:
    // only a full group can go.
    let clock = 0
    const ingest = createIngest(grouped, silentLogger, () => {}, undefined, { now: () => clock })
    const outcomes: ReturnType<typeof ingest.commit>[] = []
    for (let i = 0; i < 400; i++) {
      clock += 0.1
      outcomes.push(ingest.commit(incoming(`evt_full_${i}`)))
      await vi.advanceTimersByTimeAsync(0)
    }
    expect(sizes.slice(-5)).toEqual(Array(5).fill(grouping.targetPerCommit))
    await vi.runAllTimersAsync()
    expect((await Promise.all(outcomes)).every((o) => o.ok)).toBe(true)
  })

  it('makes groups that grow with the rate, up to the target, within the longest wait', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 2_000, noNaN: true }),
        fc.double({ min: 0.001, max: 2_000, noNaN: true }),
        (a, b) => {
          const [fast, slow] = a < b ? [a, b] : [b, a]
          const group = (gap: number) => groupWindowMs(gap, grouping) / gap
          expect(groupWindowMs(fast, grouping)).toBeLessThanOrEqual(grouping.maxWaitMs)
          expect(group(fast)).toBeGreaterThanOrEqual(group(slow) - 1e-9)
          expect(group(fast)).toBeLessThanOrEqual(grouping.targetPerCommit - 1 + 1e-9)
          if (slow >= grouping.maxWaitMs) expect(groupWindowMs(slow, grouping)).toBe(0)
        },
      ),
    )
  })
})
