import { spawn } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { acquireInstanceLock, openDatabase, schemaVersion } from '../../../src/main/db'
import { processIdentity } from '../../../src/main/db/instance-lock'
import { migrations } from '../../../src/main/db/migrations'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

const latest = Math.max(...migrations.map((m) => m.version))

describe('database migrations', () => {
  const tempDir = useTempDir()

  it('have unique versions', () => {
    const versions = migrations.map((m) => m.version)
    expect(new Set(versions).size).toBe(versions.length)
  })

  it('bring an empty file to the latest version, in WAL with full sync', () => {
    const db = unwrap(openDatabase(join(tempDir(), 'watchdesk.db')))
    expect(schemaVersion(db)).toBe(latest)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('synchronous', { simple: true })).toBe(2)
    db.close()
  })

  it.each(migrations.map((m) => m.version).filter((v) => v < latest))(
    'bring a file from version %i to the latest, keeping its rows',
    (from) => {
      const file = join(tempDir(), 'watchdesk.db')
      const old = unwrap(openDatabase(file, { migrations: migrations.filter((m) => m.version <= from) }))
      expect(schemaVersion(old)).toBe(from)
      old.prepare(`INSERT INTO meta (key, value) VALUES ('survivor', 'v${from}')`).run()
      old.close()

      const db = unwrap(openDatabase(file))
      expect(schemaVersion(db)).toBe(latest)
      expect(db.prepare(`SELECT value FROM meta WHERE key = 'survivor'`).get()).toEqual({ value: `v${from}` })
      db.close()
    },
  )

  it.each(migrations.map((m) => m.version).filter((v) => v < latest))(
    'give a file upgraded from version %i exactly the schema of a fresh install',
    (from) => {
      const schemaOf = (file: string) => {
        const db = unwrap(openDatabase(file))
        const rows = db
          .prepare(`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name`)
          .all()
        db.close()
        return rows
      }
      const fresh = schemaOf(join(tempDir(), 'fresh.db'))
      const file = join(tempDir(), 'upgraded.db')
      unwrap(openDatabase(file, { migrations: migrations.filter((m) => m.version <= from) })).close()
      expect(schemaOf(file)).toEqual(fresh)
      // Not vacuous: the fresh schema holds every table the migrations create.
      expect(fresh.filter((r: any) => r.type === 'table').map((r: any) => r.name)).toEqual([
        'alert_incidents',
        'alert_log',
        'alert_mutes',
        'alert_outbox',
        'chain_samples',
        'chain_uptime',
        'drift_changes',
        'drift_cursor',
        'drift_shapes',
        'event_arrivals',
        'events',
        'forward_attempts',
        'forward_outbox',
        'forward_routes',
        'listener_runs',
        'meta',
        'reachability_outages',
        'reachability_settled',
        'relay_tokens',
        'replay_suspects',
        'source_cursors',
        'webhook_rejections',
      ])
    },
  )

  it('keep each migration in its own file, importing nothing but the Migration type', () => {
    const dir = join(import.meta.dirname, '../../../src/main/db/migrations')
    const files = readdirSync(dir).filter((f) => /^\d{3}-.+\.ts$/.test(f))
    expect(files.map((f) => Number(f.slice(0, 3)))).toEqual(migrations.map((m) => m.version))
    for (const f of files) {
      const imports = readFileSync(join(dir, f), 'utf8').match(/^import .*$/gm) ?? []
      expect(imports, f).toEqual([`import type { Migration } from './migration'`])
    }
  })

  it('refuse a file written by a newer watchdesk, saying what to do', () => {
    const file = join(tempDir(), 'watchdesk.db')
    const db = unwrap(openDatabase(file))
    db.pragma(`user_version = ${latest + 5}`)
    db.close()
    const reopened = openDatabase(file)
    expect(reopened.ok).toBe(false)
    if (!reopened.ok) {
      expect(reopened.error.message).toMatch(
        new RegExp(`schema version ${latest + 5}.*up to ${latest}.*Upgrade watchdesk`),
      )
    }
  })

  it('refuse a file that is not a database, saying so', () => {
    const file = join(tempDir(), 'watchdesk.db')
    writeFileSync(file, 'this is not sqlite, it is a shopping list '.repeat(100))
    const opened = openDatabase(file)
    expect(opened.ok).toBe(false)
    if (!opened.ok) expect(opened.error.message).toMatch(/not a SQLite database/)
  })

  it('roll back a migration that fails, leaving the version where it was', () => {
    const file = join(tempDir(), 'watchdesk.db')
    const broken = [
      ...migrations,
      {
        version: latest + 1,
        name: 'broken',
        up: (d: any) => d.exec('CREATE TABLE half (x); SELECT * FROM no_such_table'),
      },
    ]
    expect(openDatabase(file, { migrations: broken }).ok).toBe(false)
    const db = unwrap(openDatabase(file))
    expect(schemaVersion(db)).toBe(latest)
    expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'half'`).get()).toBeUndefined()
    db.close()
  })
})

describe('migration 011: forward target names without credentials', () => {
  const tempDir = useTempDir()

  it('renames what older versions stored under a whole --forward-to URL, credentials out, queues kept', () => {
    const file = join(tempDir(), 'watchdesk.db')
    const before = migrations.filter((m) => m.version < 11)
    const old = unwrap(openDatabase(file, { migrations: before }))
    const leaked = 'url:http://ops:PASSWORD@127.0.0.1:3000/hook?token=TOKEN#frag'
    const twin = 'url:http://ops:PASSWORD@127.0.0.1:3000/hook?token=OTHER'
    for (const [target, seq] of [
      [leaked, 1],
      [twin, 2],
      ['url:http://127.0.0.1:4000/plain', 3],
      ['app', 4],
    ] as const) {
      old
        .prepare(`INSERT INTO forward_outbox (event_seq, target, created_at, due_at) VALUES (?, ?, 0, 0)`)
        .run(seq, target)
      old
        .prepare(
          `INSERT INTO forward_attempts (outbox_id, event_seq, target, attempt, at) VALUES (?, ?, ?, 1, 0)`,
        )
        .run(seq, seq, target)
      old.prepare(`INSERT INTO forward_routes (target, pattern) VALUES (?, '*')`).run(target)
    }
    old.close()
    const db = unwrap(openDatabase(file))
    const names = (table: string, order = 'id') =>
      (db.prepare(`SELECT target FROM ${table} ORDER BY ${order}`).pluck().all() as string[]).join(' ')
    expect(names('forward_outbox')).toBe(
      'url:http://127.0.0.1:3000/hook url:http://127.0.0.1:3000/hook url:http://127.0.0.1:4000/plain app',
    )
    expect(names('forward_attempts')).toBe(names('forward_outbox'))
    expect(names('forward_routes', 'target')).toBe(
      'app url:http://127.0.0.1:3000/hook url:http://127.0.0.1:4000/plain',
    )
    db.close()
    const bytes = readFileSync(file)
    expect(bytes.includes('PASSWORD')).toBe(false)
    expect(bytes.includes('TOKEN')).toBe(false)
  })
})

describe('the instance lock', () => {
  const tempDir = useTempDir()

  it('refuses a second running instance on the same data dir, naming its pid', async () => {
    const dir = tempDir()
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' })
    try {
      unwrap(acquireInstanceLock(dir, other.pid!))
      const second = acquireInstanceLock(dir)
      expect(second.ok).toBe(false)
      if (!second.ok) expect(second.error.message).toMatch(new RegExp(`pid ${other.pid}.*another --data-dir`))
    } finally {
      other.kill('SIGKILL')
    }
  })

  it('takes over a lock left by an instance that crashed', async () => {
    const dir = tempDir()
    const crashed = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' })
    await new Promise((r) => crashed.on('exit', r))
    unwrap(acquireInstanceLock(dir, crashed.pid!))
    const lock = acquireInstanceLock(dir)
    expect(lock.ok).toBe(true)
    if (lock.ok) lock.value.release()
  })

  it('takes over a lock whose pid now belongs to another program (pid 1), saying so', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'watchdesk.lock'), '1')
    const lock = unwrap(acquireInstanceLock(dir))
    expect(lock.tookOver).toBe(
      `took over ${join(dir, 'watchdesk.lock')}: pid 1 is now another program, not the watchdesk that locked it`,
    )
    expect(JSON.parse(readFileSync(lock.file, 'utf8'))).toEqual({
      pid: process.pid,
      identity: processIdentity(process.pid),
      role: 'console',
    })
    lock.release()
  })

  it('takes over a lock whose live pid started at another time than the recorded one', () => {
    const dir = tempDir()
    const identity = processIdentity(1)
    expect(identity).toMatch(/^[0-9a-f-]{36}:\d+$/)
    writeFileSync(join(dir, 'watchdesk.lock'), JSON.stringify({ pid: 1, identity: `${identity}0` }))
    expect(unwrap(acquireInstanceLock(dir)).tookOver).toMatch(/pid 1 is now another program/)
  })

  it('still refuses a live holder whose identity matches', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'watchdesk.lock'), JSON.stringify({ pid: 1, identity: processIdentity(1) }))
    const second = acquireInstanceLock(dir)
    expect(second.ok).toBe(false)
  })
})
