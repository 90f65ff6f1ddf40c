import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { cliPath, runCli } from '../../support/serve-process'
import { usePostgres } from '../../support/postgres'
import { useTempDir } from '../../support/temp'

const events = 30_000

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

/** Runs `store copy` and kills it (SIGKILL) once it has reported `killAfter` events copied. */
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

describe('watchdesk store copy --from sqlite: --to postgres:// (the built CLI, the private cluster)', () => {
  const postgres = usePostgres()
  const tempDir = useTempDir('watchdesk-store-copy-')

  it('killed half-way then run again: every event exactly once with its raw body byte-identical; a third run copies nothing', async () => {
    const file = join(tempDir(), 'watchdesk.db')
    seedSqlite(file)
    const url = postgres().createDatabase('store_copy')
    const args = ['store', 'copy', '--from', `sqlite:${file}`, '--to', url]

    const { killedAt } = await copyKilledAfter(args, 5_000)
    expect(killedAt).toBeLessThan(events)
    const client = new pg.Client(url)
    await client.connect()
    try {
      const half = (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM events')).rows[0]!.n
      expect(half).toBeGreaterThanOrEqual(killedAt)
      expect(half).toBeLessThan(events)
      // An id the team store already has (received by a relay) stays as it is.
      await client.query(`UPDATE events SET deliveries = 42 WHERE id = 'evt_copy_0'`)

      const second = await runCli([...args, '--json'])
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

      const third = await runCli([...args, '--json'])
      expect(third.code).toBe(0)
      expect(JSON.parse(third.stdout)).toMatchObject({ read: 0, inserted: 0 })
    } finally {
      await client.end()
    }
  }, 180_000)

  it('refuses the other direction as a usage error', async () => {
    const refused = await runCli([
      'store',
      'copy',
      '--from',
      'postgres://x@127.0.0.1/db',
      '--to',
      'sqlite:/tmp/x.db',
    ])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/goes from a SQLite file to PostgreSQL/)
  })
})
