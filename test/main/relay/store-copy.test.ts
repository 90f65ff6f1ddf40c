import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { alertEventCursorKey, maxEventSeq, openDatabase } from '../../../src/main/db'
import { copyPostgresToSqlite, copySqliteToPostgres } from '../../../src/main/relay/store-copy'
import { unwrap } from '../../../src/shared/result'
import { runMain } from '../../support/cli'
import { cliPath } from '../../support/serve-process'
import { usePostgres } from '../../support/postgres'
import { useTempDir } from '../../support/temp'

/** Twelve batches of the copy's 1,000: killed after two, ten remain for the kill to land in (it
 * was 30,000; what the copy does per event is the same at any count). */
const events = 12_000
const killedAfter = 2_000

/** Raw bodies with every byte value (not only UTF-8), some redelivered, some with a conflict body. */
function seedSqlite(file: string): void {
  const opened = openDatabase(file)
  if (!opened.ok) throw new Error(opened.error.message)
  const db = opened.value
  const insert = db.prepare(
    `INSERT INTO events (id, type, grp, created_at, created_ms, received_at, last_delivery_at, deliveries, endpoint, data_id, body, data, conflicts, conflict_body)
     VALUES (?, 'payout.completed', 'payout', '2026-01-01T00:00:00Z', 1767225600000, ?, ?, ?, 'env', ?, ?, '{}', ?, ?)`,
  )
  db.transaction(() => {
    for (let i = 0; i < events; i++) {
      const body = Buffer.concat([
        Buffer.from(`{"id":"evt_copy_${i}"}`),
        createHash('sha256').update(String(i)).digest(),
      ])
      const conflict = i % 97 === 0
      insert.run(
        `evt_copy_${i}`,
        1_700_000_000_000 + i,
        1_700_000_000_000 + i,
        i % 5 === 0 ? 3 : 1,
        i % 2 === 0 ? `po_${i}` : null,
        body,
        conflict ? 1 : 0,
        conflict ? Buffer.from([0, 255, i % 256]) : null,
      )
    }
  })()
  db.close()
}

const digest = (
  rows: { id: string; body: Buffer; conflict_body: Buffer | null; deliveries: number; conflicts: number }[],
) =>
  new Map(
    rows.map((r) => [
      r.id,
      `${Buffer.from(r.body).toString('hex')}|${r.conflict_body ? Buffer.from(r.conflict_body).toString('hex') : '-'}|${r.deliveries}|${r.conflicts}`,
    ]),
  )

/** Runs `store copy` as its own process (the built CLI) and kills it (SIGKILL) once it has reported
 * `killAfter` events copied. The runs after it go through the command's main() in this process
 * (runMain): what they prove is what a run finds and copies, not how a process starts. */
function copyKilledAfter(args: string[], killAfter: number): Promise<{ killedAt: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let err = ''
    let killedAt = 0
    child.stderr.on('data', (chunk) => {
      err += chunk
      const copied = [...err.matchAll(/copied (\d+) of/g)].map((m) => Number(m[1])).at(-1) ?? 0
      if (copied >= killAfter && killedAt === 0) {
        killedAt = copied
        child.kill('SIGKILL')
      }
    })
    child.on('error', reject)
    child.on('close', () =>
      killedAt > 0 ? resolve({ killedAt }) : reject(new Error(`finished before the kill:\n${err}`)),
    )
  })
}

describe('watchdesk store copy between sqlite: and postgres:// (the built CLI, the private cluster)', () => {
  const postgres = usePostgres()
  const tempDir = useTempDir('watchdesk-store-copy-')

  it('killed half-way then run again: every event exactly once with its raw body byte-identical; a third run copies nothing', async () => {
    const file = join(tempDir(), 'watchdesk.db')
    seedSqlite(file)
    const url = await postgres().createDatabase('store_copy')
    const args = ['store', 'copy', '--from', `sqlite:${file}`, '--to', url]

    const { killedAt } = await copyKilledAfter(args, killedAfter)
    expect(killedAt).toBeLessThan(events)
    const client = new pg.Client(url)
    await client.connect()
    try {
      const half = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]!.n
      expect(half).toBeGreaterThanOrEqual(killedAt)
      expect(half).toBeLessThan(events)
      // An id the team store already has (received by a relay) stays as it is.
      await client.query(`UPDATE events SET deliveries = 42 WHERE id = 'evt_copy_0'`)

      const second = await runMain([...args, '--json'])
      expect(second.code).toBe(0)
      const outcome = JSON.parse(second.stdout)
      expect(outcome.from).toBeGreaterThan(0)
      expect(outcome.read + outcome.from).toBe(events)
      expect(second.stderr).toMatch(/copied \d+ of \d+ events/)

      const { rows } = await client.query('SELECT id, body, conflict_body, deliveries, conflicts FROM events')
      const sqlite = openDatabase(file, { readonly: true })
      if (!sqlite.ok) throw new Error(sqlite.error.message)
      const expected = digest(
        sqlite.value
          .prepare('SELECT id, body, conflict_body, deliveries, conflicts FROM events')
          .all() as never,
      )
      sqlite.value.close()
      const copied = digest(rows)
      expect(rows.length).toBe(events)
      expect(copied.size).toBe(events)
      const differing = [...expected].filter(([id, d]) => copied.get(id) !== d).map(([id]) => id)
      expect(differing).toEqual(['evt_copy_0'])

      const third = await runMain([...args, '--json'])
      expect(third.code).toBe(0)
      expect(JSON.parse(third.stdout)).toMatchObject({ read: 0, inserted: 0 })
    } finally {
      await client.end()
    }
  }, 180_000)

  it('back from PostgreSQL into a new SQLite file, killed half-way then run again: every event exactly once, raw bodies byte-identical, one committed in between copied too; a third run copies nothing', async () => {
    const seeded = join(tempDir(), 'seed.db')
    seedSqlite(seeded)
    const url = await postgres().createDatabase('store_copy_back')
    // The team store, filled in 12 transactions of 1,000 (12 txids: the copy reads in sync order).
    const filled = await copySqliteToPostgres(seeded, url)
    expect(filled.ok && filled.value.inserted).toBe(events)
    const file = join(tempDir(), 'back', 'relay.db')
    const args = ['store', 'copy', '--from', url, '--to', `sqlite:${file}`]

    const { killedAt } = await copyKilledAfter(args, killedAfter)
    expect(killedAt).toBeLessThan(events)
    const client = new pg.Client(url)
    await client.connect()
    try {
      const count = () => {
        const db = openDatabase(file, { readonly: true })
        if (!db.ok) throw new Error(db.error.message)
        try {
          return (db.value.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n
        } finally {
          db.value.close()
        }
      }
      const half = count()
      expect(half).toBeGreaterThanOrEqual(killedAt)
      expect(half).toBeLessThan(events)
      // An id the file already has (a console received it too) stays as it is.
      const edit = openDatabase(file)
      if (!edit.ok) throw new Error(edit.error.message)
      expect(
        edit.value.prepare(`UPDATE events SET deliveries = 42 WHERE id = 'evt_copy_0'`).run().changes,
      ).toBe(1)
      edit.value.close()
      // A delivery the team's relay committed while no copy ran.
      await client.query(
        `INSERT INTO events (id, type, grp, created_at, received_at, last_delivery_at, body, data)
         VALUES ('evt_copy_late', 'payout.completed', 'payout', '2026-01-01T00:00:00Z', 1, 1, $1, '{}')`,
        [Buffer.from([0, 1, 2, 254, 255])],
      )

      const second = await runMain([...args, '--json'])
      expect(second.code, second.stderr).toBe(0)
      const outcome = JSON.parse(second.stdout)
      expect(outcome.from).toMatch(/^\d+\.\d+$/)
      expect(second.stderr).toMatch(/copied \d+ of \d+ events/)

      const { rows } = await client.query('SELECT id, body, conflict_body, deliveries, conflicts FROM events')
      expect(rows.length).toBe(events + 1)
      const expected = digest(rows)
      const sqlite = openDatabase(file, { readonly: true })
      if (!sqlite.ok) throw new Error(sqlite.error.message)
      const back = sqlite.value
        .prepare('SELECT id, body, conflict_body, deliveries, conflicts, source FROM events')
        .all() as { id: string; source: string | null }[]
      sqlite.value.close()
      expect(back.length).toBe(events + 1)
      expect(back.every((r) => r.source === null)).toBe(true)
      const copied = digest(back as never)
      expect(copied.size).toBe(events + 1)
      const differing = [...expected].filter(([id, d]) => copied.get(id) !== d).map(([id]) => id)
      expect(differing).toEqual(['evt_copy_0'])

      const third = await runMain([...args, '--json'])
      expect(third.code).toBe(0)
      expect(JSON.parse(third.stdout)).toMatchObject({ read: 0, inserted: 0 })
    } finally {
      await client.end()
    }
  }, 180_000)

  it("into a console's data dir: the copied history is not news to its alert rule, unless the rule still had events to read", async () => {
    const team = join(tempDir(), 'team.db')
    const add = (file: string, ids: string[]) => {
      const db = unwrap(openDatabase(file))
      const insert = db.prepare(
        `INSERT INTO events (id, type, grp, created_at, received_at, last_delivery_at, body, data)
         VALUES (?, 'payout.completed', 'payout', '2026-01-01T00:00:00Z', 1, 1, ?, '{}')`,
      )
      // One transaction: a commit each was 2,500 commits (and fsyncs) for the history below.
      db.transaction(() => {
        for (const id of ids) insert.run(id, Buffer.from(id))
      })()
      const max = maxEventSeq(db)
      db.close()
      return max
    }
    add(
      team,
      Array.from({ length: 2_500 }, (_, i) => `evt_history_${i}`),
    )
    const url = await postgres().createDatabase('store_copy_history')
    expect((await copySqliteToPostgres(team, url)).ok).toBe(true)
    const cursorOf = (file: string) => {
      const db = unwrap(openDatabase(file))
      const row = db.prepare(`SELECT value FROM meta WHERE key = ?`).get(alertEventCursorKey) as
        { value: string } | undefined
      const max = maxEventSeq(db)
      db.close()
      return { cursor: Number(row?.value ?? 0), max }
    }
    const setCursor = (file: string, value: number) => {
      const db = unwrap(openDatabase(file))
      db.prepare(
        `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
      ).run(alertEventCursorKey, String(value))
      db.close()
    }

    // A console that had alerted on all it stored: after the copy (three batches), its cursor is
    // at the end, so none of the 2,500 copied events is alerted as just arrived.
    const caughtUp = join(tempDir(), 'caught-up', 'watchdesk.db')
    setCursor(caughtUp, add(caughtUp, ['evt_local_1', 'evt_local_2']))
    expect((await copyPostgresToSqlite(url, caughtUp, { batch: 1_000 })).ok).toBe(true)
    expect(cursorOf(caughtUp)).toEqual({ cursor: 2 + 2_500, max: 2 + 2_500 })

    // A console whose rule had not read its last event yet keeps its place: that event is news.
    const lagging = join(tempDir(), 'lagging', 'watchdesk.db')
    setCursor(lagging, add(lagging, ['evt_local_1', 'evt_local_2']) - 1)
    expect((await copyPostgresToSqlite(url, lagging, { batch: 1_000 })).ok).toBe(true)
    expect(cursorOf(lagging)).toEqual({ cursor: 1, max: 2 + 2_500 })
  }, 60_000)

  it('refuses a copy between two stores of the same kind as a usage error', async () => {
    const refused = await runMain([
      'store',
      'copy',
      '--from',
      'postgres://x@127.0.0.1/db',
      '--to',
      'postgres://y@127.0.0.1/db',
    ])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/goes between a SQLite file and PostgreSQL/)
  })
})
