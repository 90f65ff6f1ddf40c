import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../../../src/main/db'
import { createKeytarStore } from '../../../src/main/secrets'
import { useRelayProcesses } from '../../support/relay-process'
import { runMain } from '../../support/cli'
import { runCli, useServeProcess, postSigned } from '../../support/serve-process'
import { useTempDir } from '../../support/temp'
import { waitFor } from '../../support/wait'

const envSecret = 'whsec_backup_env_secret_7c1d0e5a94'
const keychainSecret = 'whsec_backup_keychain_secret_2b8f6a3e11'
const keychainAccount = 'webhook-secret:backup-test'
const env = { ...process.env, WATCHDESK_WEBHOOK_SECRETS: envSecret }

async function deliver(listenerUrl: string, id: string): Promise<number> {
  const body = JSON.stringify({
    id,
    type: 'payout.completed',
    created_at: '2026-11-20T10:00:00Z',
    data: { id: `po_${id}`, amount: '12.50' },
  })
  return postSigned(listenerUrl, envSecret, body)
}

interface Answer {
  id: string
  status: number
  answeredAt: number
}

/** Posts signed deliveries on `lanes` parallel lanes until stopped, recording when each was answered. */
function deliverContinuously(listenerUrl: string, lanes = 4) {
  const answers: Answer[] = []
  let stopped = false
  let n = 0
  const running = Array.from({ length: lanes }, async () => {
    while (!stopped) {
      const id = `evt_backup_${n++}`
      const status = await deliver(listenerUrl, id)
      answers.push({ id, status, answeredAt: Date.now() })
    }
  })
  return {
    answers,
    async stop() {
      stopped = true
      await Promise.all(running)
    },
  }
}

describe('watchdesk backup and restore', () => {
  const serve = useServeProcess()
  const tempDir = useTempDir('watchdesk-backup-')
  const keychain = createKeytarStore()
  afterEach(async () => {
    await keychain.delete(keychainAccount)
  })

  it('a backup taken while deliveries run restores into an empty dir with every event answered 200 before the backup started, its config and no secret', async () => {
    const root = tempDir()
    const dataDir = join(root, 'data')
    mkdirSync(dataDir)
    const configText = JSON.stringify({ pollIntervalMs: 7000 }, null, 2)
    writeFileSync(join(dataDir, 'config.json'), configText)
    const stored = await keychain.set(keychainAccount, keychainSecret)
    expect(stored.ok).toBe(true)

    const running = await serve(['--data-dir', dataDir], env)
    const listener = running.listenerUrl!
    // The first delivery starts the commit worker; retried until stored.
    await waitFor(async () => (await deliver(listener, 'evt_first')) === 200, 'the first delivery', {
      timeoutMs: 30_000,
    })
    const load = deliverContinuously(listener)
    await waitFor(
      () => load.answers.filter((a) => a.status === 200).length >= 100,
      '100 acknowledged deliveries',
      {
        timeoutMs: 60_000,
      },
    )

    const backupFile = join(root, 'console.backup')
    const backupStarted = Date.now()
    const backup = await runCli(['backup', backupFile, '--data-dir', dataDir, '--json'], env)
    const backupEnded = Date.now()
    // Deliveries keep being acknowledged after the backup too (it never stopped the writer).
    const countAfter = load.answers.length
    await waitFor(() => load.answers.length >= countAfter + 20, 'deliveries after the backup', {
      timeoutMs: 30_000,
    })
    await load.stop()
    expect(backup.stderr).toBe('')
    expect(backup.code).toBe(0)
    const summary = JSON.parse(backup.stdout) as { events: number; schemaVersion: number }
    expect(summary.schemaVersion).toBeGreaterThan(0)

    const acknowledgedBefore = ['evt_first'].concat(
      load.answers.filter((a) => a.status === 200 && a.answeredAt < backupStarted).map((a) => a.id),
    )
    expect(acknowledgedBefore.length).toBeGreaterThanOrEqual(100)
    const answeredDuring = load.answers.filter(
      (a) => a.status === 200 && a.answeredAt >= backupStarted && a.answeredAt <= backupEnded,
    )
    // The test proves a copy under load only if the writer kept acknowledging during it.
    expect(answeredDuring.length).toBeGreaterThan(0)

    expect(statSync(backupFile).mode & 0o777).toBe(0o600)
    const bytes = readFileSync(backupFile)
    expect(bytes.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\u0000')
    expect(bytes.includes(Buffer.from(envSecret))).toBe(false)
    expect(bytes.includes(Buffer.from(keychainSecret))).toBe(false)

    // A non-empty data dir is refused with the fix in the sentence.
    const refused = await runMain(['restore', backupFile, '--data-dir', dataDir], env)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/is not empty; restore only into an empty data dir/)

    const restoredDir = join(root, 'restored')
    const restored = await runMain(['restore', backupFile, '--data-dir', restoredDir], env)
    expect(restored.stderr).toBe('')
    expect(restored.code).toBe(0)
    expect(readFileSync(join(restoredDir, 'config.json'), 'utf8')).toBe(configText)
    expect(statSync(join(restoredDir, 'watchdesk.db')).mode & 0o777).toBe(0o600)
    expect(statSync(join(restoredDir, 'config.json')).mode & 0o777).toBe(0o600)

    // Read through watchdesk itself: the restored dir is a data dir it opens as its own.
    const listed = await runMain(['events', '--data-dir', restoredDir, '--json', '--limit', '100000'], env)
    expect(listed.code).toBe(0)
    const ids = new Set(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    )
    expect(acknowledgedBefore.filter((id) => !ids.has(id))).toEqual([])
    expect(ids.size).toBe(summary.events)

    const db = new BetterSqlite3(join(restoredDir, 'watchdesk.db'), { readonly: true })
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok')
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'watchdesk_backup'").all()
      expect(tables).toEqual([])
    } finally {
      db.close()
    }
  }, 180_000)

  it('refuses to overwrite an existing file, names a data dir without a database and a file that is no backup', async () => {
    const root = tempDir()
    const existing = join(root, 'exists.backup')
    writeFileSync(existing, 'keep me')
    const empty = await runMain(
      ['backup', join(root, 'new.backup'), '--data-dir', join(root, 'nothing')],
      env,
    )
    expect(empty.code).toBe(1)
    expect(empty.stderr).toMatch(/holds no database/)
    const dataDir = join(root, 'data')
    const opened = openDatabase(join(dataDir, 'watchdesk.db'))
    if (!opened.ok) throw new Error(opened.error.message)
    opened.value.close()
    const overwrite = await runMain(['backup', existing, '--data-dir', dataDir], env)
    expect(overwrite.code).toBe(1)
    expect(overwrite.stderr).toMatch(/already exists; name a new file/)
    const notBackup = await runMain(['restore', existing, '--data-dir', join(root, 'fresh')], env)
    expect(notBackup.code).toBe(1)
    expect(notBackup.stderr).toMatch(/not a watchdesk backup/)
    expect(readFileSync(existing, 'utf8')).toBe('keep me')
  })

  describe('of a SQLite relay', () => {
    const relays = useRelayProcesses()

    it('takes the relay store (--store sqlite:PATH) while it receives, restorable with every event acknowledged before', async () => {
      const root = tempDir()
      const dataDir = join(root, 'relay-data')
      mkdirSync(dataDir)
      const storeFile = join(root, 'relay.db')
      const relayEnv = { ...env, WATCHDESK_DATA_DIR: dataDir }
      const relay = await relays(`sqlite:${storeFile}`, relayEnv).ready
      const base = relay.webhooks.replace(/\/webhooks$/, '')
      const load = deliverContinuously(base)
      await waitFor(
        () => load.answers.filter((a) => a.status === 200).length >= 50,
        '50 acknowledged deliveries',
        {
          timeoutMs: 60_000,
        },
      )
      const backupFile = join(root, 'relay.backup')
      const backupStarted = Date.now()
      const backup = await runCli(
        ['backup', backupFile, '--store', `sqlite:${storeFile}`, '--json'],
        relayEnv,
      )
      await load.stop()
      expect(backup.stderr).toBe('')
      expect(backup.code).toBe(0)
      const before = load.answers
        .filter((a) => a.status === 200 && a.answeredAt < backupStarted)
        .map((a) => a.id)
      expect(before.length).toBeGreaterThanOrEqual(50)

      const restoredDir = join(root, 'restored')
      const restored = await runMain(['restore', backupFile, '--data-dir', restoredDir], relayEnv)
      expect(restored.code).toBe(0)
      const db = new BetterSqlite3(join(restoredDir, 'watchdesk.db'), { readonly: true })
      try {
        const ids = new Set((db.prepare('SELECT id FROM events').all() as { id: string }[]).map((r) => r.id))
        expect(before.filter((id) => !ids.has(id))).toEqual([])
      } finally {
        db.close()
      }

      const postgres = await runMain(
        ['backup', join(root, 'pg.backup'), '--store', 'postgres://x@127.0.0.1/db'],
        relayEnv,
      )
      expect(postgres.code).toBe(2)
      expect(postgres.stderr).toMatch(/pg_dump/)
    }, 120_000)
  })
})
