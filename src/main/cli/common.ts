import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig, resolveDataDir } from '../config'
import { databaseFileName, openDatabase } from '../db'
import type { Database } from '../db'
import type { LoadedConfig } from '../config'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { exitCodes, failure } from './exit'
import type { ExitCode } from './exit'
import type { CliIo } from './io'
import type { CommonOptions } from './declare'

export type { CliContext, CliDeps, CommonOptions } from './declare'
export { example, parsesOwnArguments, positiveInt, withCommon } from './declare'

export function dataDirOf(options: CommonOptions, io: CliIo): string {
  return resolveDataDir(options.dataDir, io.env)
}

/** The config for a command; an invalid file is a usage error (the operator's input is wrong). */
export function configFor(
  options: CommonOptions,
  io: CliIo,
): Result<LoadedConfig, { message: string; exit: ExitCode }> {
  const loaded = loadConfig(dataDirOf(options, io), options.config)
  if (loaded.ok) return ok(loaded.value)
  const exit = loaded.error.code === 'unavailable' ? exitCodes.cannotRun : exitCodes.usage
  return { ok: false, error: { message: loaded.error.message, exit } }
}

/** A config that could not be loaded: unreadable is "could not run", invalid is usage. */
export function configExit(error: { code: string }): ExitCode {
  return error.code === 'unavailable' ? exitCodes.cannotRun : exitCodes.usage
}

/** The database in `dataDir`, opened read-only and lock-free (a running console may be writing:
 * WAL lets readers in); the sentence when there is none or it will not open. `startedBy` names
 * what creates one there. */
export function openDatabaseReadOnlyIn(
  dataDir: string,
  startedBy = 'serve or the app',
): Result<Database, string> {
  const file = join(dataDir, databaseFileName)
  if (!existsSync(file))
    return {
      ok: false,
      error: `${dataDir} holds no database yet: start watchdesk (${startedBy}) there first, or pass --data-dir.`,
    }
  const db = openDatabase(file, { readonly: true })
  return db.ok ? db : { ok: false, error: db.error.message }
}

/** The console's database in the data dir, opened read-only (see openDatabaseReadOnlyIn); an exit
 * code after a sentence when there is none or it will not open. */
export function openConsoleDatabaseReadOnly(
  command: string,
  options: CommonOptions,
  io: CliIo,
  startedBy?: string,
): Result<Database, ExitCode> {
  const db = openDatabaseReadOnlyIn(dataDirOf(options, io), startedBy)
  if (!db.ok) return { ok: false, error: failure(io, command, db.error, exitCodes.cannotRun) }
  return ok(db.value)
}
