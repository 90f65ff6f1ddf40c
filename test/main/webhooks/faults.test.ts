import { join } from 'node:path'
import { rmSync } from 'node:fs'
import BetterSqlite3 from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBackend } from '../../../src/main/backend'
import type { Backend } from '../../../src/main/backend'
import { openDatabase } from '../../../src/main/db'
import { silentLogger } from '../../../src/main/log'
import { createMemoryStore } from '../../../src/main/secrets'
import { signBody } from '../../../src/main/webhooks'
import { workerCommitter } from '../../../src/main/webhooks/committer'
import { createIngest } from '../../../src/main/webhooks/ingest'
import { eventParams } from '../../../src/main/webhooks/store'
import type { StorageStatus } from '../../../src/shared/contract/storage'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'
import { fillDisk, mountTmpfs } from '../db/tmpfs'
import { countEvents, envelope, post, secretA, useWebhookBackend } from './helpers'
import { waitFor } from '../../support/wait'

const signed = (body: string) => ({ 'x-service-signature': signBody(secretA, body) })

describe('one poison delivery fails nothing else', () => {
  const start = useWebhookBackend()

  it('answers 400 to a signed event nested 4,500 deep, records why, and stores the deliveries sent with it', async () => {
    const b = await start()
    // Built as text: JSON.stringify itself overflows at this depth.
    const poison =
      `{"id":"evt_poison","type":"payout.completed","created_at":"2026-11-20T10:15:00Z","data":` +
      `${'{"a":'.repeat(4500)}{}${'}'.repeat(4500)}}`
    const good = Array.from({ length: 20 }, (_, i) => envelope(`evt_good_${i}`))
    const answers = await Promise.all([poison, ...good].map((body) => post(b.webhookUrl, body, signed(body))))
    expect(answers.map((a) => a.status)).toEqual([400, ...good.map(() => 200)])
    expect(countEvents(b)).toBe(20)
    await b.services.webhooks.stop()
    const reasons = b.context.db.prepare('SELECT status, reason FROM webhook_rejections').all()
    expect(reasons).toEqual([{ status: 400, reason: 'JSON nested deeper than 64 levels' }])
  })

  it('refuses a value that cannot be serialised on its own, committing the rest of its batch', async () => {
    const dir = useTempDirOnce()
    const db = unwrap(openDatabase(join(dir, 'watchdesk.db')))
    const committer = workerCommitter(db.name)
    const ingest = createIngest(committer, silentLogger, () => {})
    const incoming = (id: string, data: Record<string, unknown>) => ({
      envelope: { id, type: 'payout.completed', created_at: '2026-11-20T10:00:00Z', data },
      body: Buffer.from(id),
      endpoint: 'wh_a',
      at: 1,
    })
    const circular: Record<string, unknown> = {}
    circular.self = circular
    const outcomes = await Promise.all([
      ingest.commit(incoming('evt_a', {})),
      ingest.commit(incoming('evt_loop', circular)),
      ingest.commit(incoming('evt_b', {})),
    ])
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual(['ok', 'bad_request', 'ok'])
    await committer.close()
    expect(db.prepare('SELECT id FROM events ORDER BY id').all()).toEqual([{ id: 'evt_a' }, { id: 'evt_b' }])
    db.close()
  })

  it("rolls back only the failing event's savepoint when a statement run with it fails", async () => {
    const dir = useTempDirOnce()
    const db = unwrap(openDatabase(join(dir, 'watchdesk.db')))
    db.exec(`CREATE TABLE outbox_like (id TEXT NOT NULL CHECK (id <> 'evt_bad'), inserted INTEGER NOT NULL)`)
    const committer = workerCommitter(db.name, {
      hooks: [
        {
          name: 'test.outbox-like',
          sql: 'INSERT INTO outbox_like (id, inserted) VALUES (@id, @inserted)',
          params: ['id', 'inserted'],
        },
      ],
    })
    const params = (id: string) =>
      eventParams({
        envelope: { id, type: 'payout.completed', created_at: 'x', data: {} },
        body: Buffer.from(id),
        endpoint: 'wh_a',
        at: 1,
      })
    const result = await committer.commit([params('evt_1'), params('evt_bad'), params('evt_2')], [])
    expect(result.ok && result.items.map((i) => i.ok)).toEqual([true, false, true])
    await committer.close()
    expect(db.prepare('SELECT id FROM events ORDER BY id').all()).toEqual([{ id: 'evt_1' }, { id: 'evt_2' }])
    expect(db.prepare('SELECT id, inserted FROM outbox_like ORDER BY id').all()).toEqual([
      { id: 'evt_1', inserted: 1 },
      { id: 'evt_2', inserted: 1 },
    ])
    db.close()
  })

  const useTempDirOnce = useTempDir()
})

describe('conflicting redeliveries', () => {
  // One back end for both (a start costs about a second of CPU): each sends an id of its own and
  // reads the counters as they move.
  const start = useWebhookBackend({ per: 'file' })
  let shared: ReturnType<typeof start> | undefined
  const backend = () => (shared ??= start())
  const counters = (b: Awaited<ReturnType<typeof start>>) => {
    const status = b.services.webhooks.status()
    return [status.accepted, status.duplicates, status.conflicts]
  }

  it('keeps the first body, records the differing one, and flags and counts the conflict', async () => {
    const b = await backend()
    const [accepted, duplicates, conflicts] = counters(b)
    const first = envelope('evt_c', 'payout.completed', { id: 'po_1', amount: '10.00' })
    const other = envelope('evt_c', 'payout.failed', { id: 'po_1', amount: '99.00' })
    for (const body of [first, first, other])
      expect((await post(b.webhookUrl, body, signed(body))).status).toBe(200)
    const detail = b.services.webhooks.store.get('evt_c')!
    expect(detail).toMatchObject({
      type: 'payout.completed',
      body: first,
      deliveries: 3,
      conflict: true,
      conflicts: 1,
      conflictBody: other,
    })
    expect(
      b.services.webhooks.store
        .list({}, undefined, 10)
        .rows.filter((r) => r.conflict)
        .map((r) => r.id),
    ).toEqual(['evt_c'])
    expect(counters(b)).toEqual([accepted! + 1, duplicates! + 2, conflicts! + 1])
  })

  it('does not flag a byte-identical redelivery', async () => {
    const b = await backend()
    const conflicts = b.services.webhooks.status().conflicts
    const body = envelope('evt_same')
    for (let i = 0; i < 2; i++) expect((await post(b.webhookUrl, body, signed(body))).status).toBe(200)
    expect(b.services.webhooks.store.get('evt_same')).toMatchObject({
      deliveries: 2,
      conflict: false,
      conflicts: 0,
    })
    expect(b.services.webhooks.status().conflicts).toBe(conflicts)
  })
})

describe('storage faults are a state', () => {
  const start = useWebhookBackend()

  it('answers 503 while another process holds the write lock, says so, and recovers by itself', async () => {
    const b = await start()
    const storagePushes = () =>
      b.pushes.filter((p) => p.topic === 'storage.status').map((p) => (p.payload as StorageStatus).state)
    const other = new BetterSqlite3(b.context.db.name)
    other.exec('BEGIN IMMEDIATE')
    try {
      const body = envelope('evt_locked')
      expect((await post(b.webhookUrl, body, signed(body))).status).toBe(503)
      const status = b.context.storage.status()
      expect(status.state).toBe('locked')
      expect(status.cause).toBe(`Database ${b.context.db.name} is locked by another process.`)
      expect(b.services.webhooks.status().storage.state).toBe('locked')
    } finally {
      other.exec('ROLLBACK')
      other.close()
    }
    await waitFor(() => b.context.storage.status().state === 'ok', 'storage ok again', { timeoutMs: 10_000 })
    const body = envelope('evt_after_lock')
    expect((await post(b.webhookUrl, body, signed(body))).status).toBe(200)
    expect(storagePushes()).toEqual(['locked', 'ok'])
    expect(countEvents(b)).toBe(1)
  })
})

describe('the commit worker', () => {
  const tempDir = useTempDir()

  it('is started again after it dies (here: its database missing), failing commits with a storage failure meanwhile', async () => {
    const file = join(tempDir(), 'later.db')
    const restarts: (string | null)[] = []
    const committer = workerCommitter(file, { onRestart: (f) => restarts.push(f.code) })
    try {
      const params = (id: string) =>
        eventParams({
          envelope: { id, type: 'payout.completed', created_at: 'x', data: {} },
          body: Buffer.from(id),
          endpoint: 'wh_a',
          at: 1,
        })
      const failed = await waitFor(
        async () => {
          const r = await committer.commit([params('evt_early')], [])
          return r.ok ? undefined : r.failure
        },
        'a commit failing while the database is missing',
        { timeoutMs: 10_000 },
      )
      expect(failed.code).toMatch(/^(SQLITE_CANTOPEN|WORKER_EXIT|WORKER_STARTING)$/)
      await waitFor(() => restarts.includes('SQLITE_CANTOPEN'), 'a restart for SQLITE_CANTOPEN', {
        timeoutMs: 10_000,
      })
      unwrap(openDatabase(file)).close()
      const stored = await waitFor(
        async () => {
          const r = await committer.commit([params('evt_later')], [])
          return r.ok ? r.items : undefined
        },
        'a commit once the database is there',
        { timeoutMs: 10_000 },
      )
      expect(stored.map((i) => i.ok && i.summary.id)).toEqual(['evt_later'])
    } finally {
      await committer.close()
    }
  })
})

describe('a full disk', () => {
  const tmpfs = mountTmpfs(3072)
  const backends: Backend[] = []
  beforeAll(() => {
    if (tmpfs.dir === null) console.warn(`skipping the full-disk tests: ${tmpfs.reason}`)
  })
  afterAll(async () => {
    for (const b of backends) await b.close()
    if (tmpfs.dir !== null) tmpfs.unmount()
  })

  it.skipIf(tmpfs.dir === null)(
    'answers 503 with the cause while the disk is full, never crashes, and stores again once space frees',
    async () => {
      const dataDir = join(tmpfs.dir!, 'data')
      const b = unwrap(
        await startBackend({
          dataDir,
          shell: 'serve',
          env: {},
          log: silentLogger,
          listenerPort: 0,
          secrets: createMemoryStore({ 'webhook-secret:wh_alpha': secretA }),
        }),
      )
      backends.push(b)
      const url = `${b.services.webhooks.address().url}/webhooks`
      const filler = join(tmpfs.dir!, 'filler')
      fillDisk(filler)
      const padding = 'x'.repeat(20_000)
      const answered: Record<string, number> = {}
      // Enough bytes to outgrow any space the WAL can still reuse.
      for (let i = 0; i < 40; i++) {
        const body = envelope(`evt_full_${i}`, 'payout.completed', { padding })
        answered[`evt_full_${i}`] = (await post(url, body, signed(body))).status
      }
      expect(Object.values(answered)).toContain(503)
      expect(new Set(Object.values(answered))).toEqual(
        new Set(Object.values(answered).filter((s) => s === 200 || s === 503)),
      )
      const status = b.context.storage.status()
      expect(status.state).toBe('full')
      expect(status.cause).toMatch(new RegExp(`^Disk full at ${dataDir}: \\d+(\\.\\d)? (B|kB) free\\.$`))
      expect(status.fix).toMatch(/^Free space on that disk/)
      rmSync(filler)
      const freedAt = Date.now()
      await waitFor(() => b.context.storage.status().state === 'ok', 'storage ok again', {
        timeoutMs: 10_000,
      })
      const body = envelope('evt_after_full')
      expect((await post(url, body, signed(body))).status).toBe(200)
      expect(Date.now() - freedAt).toBeLessThan(10_000)
      // Every delivery answered 200 is stored; none answered 503 is.
      const stored = new Set(
        (b.context.db.prepare('SELECT id FROM events').all() as { id: string }[]).map((r) => r.id),
      )
      for (const [id, status] of Object.entries(answered)) expect(stored.has(id), id).toBe(status === 200)
      expect(stored.has('evt_after_full')).toBe(true)
    },
  )
})
