import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { main } from '../../../src/main/cli/main'
import type { CliIo } from '../../../src/main/cli/io'
import { openDatabase } from '../../../src/main/db'
import { migrations } from '../../../src/main/db/migrations'
import { unwrap } from '../../../src/shared/result'
import { useTempDir } from '../../support/temp'

/** Issue 29 item 8: restore checks what it restores (integrity, the schema exactly as the
 * migrations make it, a known schema version), and says what is wrong with its target. The
 * command line's own code (`watchdesk backup` / `restore`) over real SQLite files. */

const latestVersion = () => migrations.at(-1)!.version

function captureIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = []
  const errors: string[] = []
  return { lines, errors, out: (l) => lines.push(l), err: (l) => errors.push(l), env: {} }
}

describe('restore checks what it restores', () => {
  const tempDir = useTempDir('watchdesk-restore-')

  /** A data dir with a migrated database, one event and a config, backed up with the CLI. */
  async function backupFile(): Promise<string> {
    const root = tempDir()
    const dataDir = join(root, 'data')
    const db = unwrap(openDatabase(join(dataDir, 'watchdesk.db')))
    db.close()
    writeFileSync(join(dataDir, 'config.json'), JSON.stringify({ pollIntervalMs: 7000 }))
    const file = join(root, 'data.backup')
    expect(await main(['backup', file, '--data-dir', dataDir], captureIo())).toBe(0)
    return file
  }

  const restore = async (file: string, dataDir: string) => {
    const io = captureIo()
    const code = await main(['restore', file, '--data-dir', dataDir], io)
    return { code, said: io.errors.join('\n') }
  }

  it('restores an untouched backup (the check accepts what watchdesk itself wrote)', async () => {
    const file = await backupFile()
    const target = join(tempDir(), 'restored')
    const { code, said } = await restore(file, target)
    expect(said).toBe('')
    expect(code).toBe(0)
    expect(readdirSync(target).sort()).toEqual(['config.json', 'watchdesk.db'])
  })

  it('refuses a backup with an added trigger, with a sentence naming it, and restores nothing', async () => {
    const file = await backupFile()
    const tamper = new BetterSqlite3(file)
    tamper.exec('CREATE TRIGGER wipe_events AFTER INSERT ON events BEGIN DELETE FROM events; END')
    tamper.close()
    const target = join(tempDir(), 'restored')
    const { code, said } = await restore(file, target)
    expect(code).toBe(1)
    expect(said).toContain(
      `The backup's schema is not the one watchdesk makes at schema version ${latestVersion()}: the trigger "wipe_events" on events is extra.`,
    )
    expect(said).toContain('Nothing was restored.')
    expect(existsSync(target) ? readdirSync(target) : []).toEqual([])
  })

  it('refuses a backup with a dropped index or an extra table, and one whose schema version was changed', async () => {
    const file = await backupFile()
    const tamper = new BetterSqlite3(file)
    const index = tamper
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL LIMIT 1`)
      .get() as { name: string }
    tamper.exec(`DROP INDEX ${index.name}; CREATE TABLE notes (t TEXT)`)
    tamper.close()
    const dropped = await restore(file, join(tempDir(), 'a'))
    expect(dropped.code).toBe(1)
    expect(dropped.said).toMatch(
      new RegExp(`the table "notes" is extra; the index "${index.name}" on \\w+ is missing`),
    )

    const renumbered = await backupFile()
    const older = new BetterSqlite3(renumbered)
    older.pragma('user_version = 3')
    older.close()
    const changed = await restore(renumbered, join(tempDir(), 'b'))
    expect(changed.code).toBe(1)
    expect(changed.said).toContain(
      `The backup records schema version ${latestVersion()} but its database is at version 3: the file was changed after watchdesk wrote it.`,
    )
  })

  it('says so when the target is a file, not a folder (exit 3), with no stack trace', async () => {
    const file = await backupFile()
    const target = join(tempDir(), 'a-file')
    writeFileSync(target, 'not a folder')
    const { code, said } = await restore(file, target)
    expect(code).toBe(3)
    expect(said).toBe(
      `watchdesk restore: ${target} is a file, not a folder: restore into a new or empty folder (pass --data-dir with one).`,
    )
  })

  it('names the leftover of a killed restore with the command that clears it; after it the restore runs', async () => {
    const file = await backupFile()
    const target = join(tempDir(), "operator's data")
    mkdirSync(target)
    // What a restore killed after writing config.json, before renaming the database, leaves.
    writeFileSync(join(target, 'watchdesk.db.restoring'), 'half a copy')
    writeFileSync(join(target, 'config.json'), '{}')
    const { code, said } = await restore(file, target)
    expect(code).toBe(1)
    expect(said).toContain(
      `${target} holds ${join(target, 'watchdesk.db.restoring')}, left by a restore that did not finish`,
    )
    const command = /Clear it with: (rm .*) — then run the restore again\./.exec(said)?.[1]
    expect(command).toBeDefined()
    execFileSync('sh', ['-c', command!])
    expect(readdirSync(target)).toEqual([])
    expect((await restore(file, target)).code).toBe(0)
  })
})
