import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import type { Database } from 'better-sqlite3'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { migrations as allMigrations } from './migrations'
import type { Migration } from './migrations'

export type { Database } from 'better-sqlite3'
export type { Migration } from './migrations'
export { commitHookParams, prepareCommitHook } from './commit-hooks'
export type { CommitHook, CommitHookParam, CommitHookParams } from './commit-hooks'
export { acquireInstanceLock, acquireStoreLock, lockFileOf } from './instance-lock'
export type { InstanceLock, LockRole } from './instance-lock'
export { createStorageHealth, failureFrom } from './health'
export { makeDataDirPrivate } from './private'
export { readSnapshot } from './snapshot'
export { alertEventCursorKey, maxEventSeq, skipHistory } from './event-readers'
export type { StorageHealth, WriteFailure } from './health'

export const databaseFileName = 'watchdesk.db'

export interface OpenOptions {
  migrations?: Migration[]
  readonly?: boolean
}

/** Opens (creating if needed) the database, applies pending migrations, and refuses a file whose
 * schema is newer than this build rather than guessing at it. */
export function openDatabase(file: string, options: OpenOptions = {}): Result<Database> {
  const migrations = [...(options.migrations ?? allMigrations)].sort((a, b) => a.version - b.version)
  let db: Database
  try {
    if (!options.readonly) {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
      // Created 0600 before SQLite opens it; SQLite gives the WAL and SHM the same mode.
      closeSync(openSync(file, 'a', 0o600))
    }
    db = new BetterSqlite3(file, {
      readonly: options.readonly ?? false,
      fileMustExist: options.readonly ?? false,
    })
  } catch (error) {
    return err('unavailable', openFailure(file, error))
  }
  try {
    db.pragma('busy_timeout = 5000')
    if (!options.readonly) {
      db.pragma('journal_mode = WAL')
      // FULL: a commit acknowledged to a webhook sender survives a power cut.
      db.pragma('synchronous = FULL')
    }
    db.pragma('foreign_keys = ON')
    const migrated = migrate(db, file, migrations, options.readonly ?? false)
    if (!migrated.ok) {
      db.close()
      return migrated
    }
    return ok(db)
  } catch (error) {
    db.close()
    return err('unavailable', openFailure(file, error))
  }
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number
}

function migrate(db: Database, file: string, migrations: Migration[], readonly: boolean): Result<number> {
  const current = schemaVersion(db)
  const latest = migrations.at(-1)?.version ?? 0
  if (current > latest) {
    return err(
      'conflict',
      `${file} has schema version ${current}, but this watchdesk only knows versions up to ${latest}: ` +
        `it was written by a newer watchdesk. Upgrade watchdesk, or start it with another --data-dir.`,
    )
  }
  const pending = migrations.filter((m) => m.version > current)
  if (pending.length > 0 && readonly) {
    return err(
      'conflict',
      `${file} needs migrating to version ${latest}; start watchdesk once (serve or the app) to do it.`,
    )
  }
  for (const migration of pending) {
    db.transaction(() => {
      migration.up(db)
      db.pragma(`user_version = ${migration.version}`)
    }).immediate()
  }
  return ok(latest)
}

function openFailure(file: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  if (/SQLITE_BUSY|database is locked/i.test(message)) {
    return `${file} is locked by another process (${message}). Close the other watchdesk, or use another --data-dir.`
  }
  if (/SQLITE_NOTADB|not a database/i.test(message)) {
    return `${file} is not a SQLite database (${message}). Move it aside; watchdesk will create a new one.`
  }
  if (/unable to open|SQLITE_CANTOPEN|EACCES|EROFS/i.test(message)) {
    return `${file} cannot be opened (${message}). Check that the data dir exists and is writable, or pass --data-dir.`
  }
  return `${file} could not be opened: ${message}`
}
