import { resolve } from 'node:path'
import type { Command } from 'commander'
import { backupDataDir, restoreDataDir } from '../db/backup'
import { version } from '../version'
import type { CliContext, CommonOptions } from './common'
import { dataDirOf, example, withCommon } from './common'
import { exitCodeFor, exitCodes, failWith, failure } from './exit'
import type { CliIo } from './io'

/** `watchdesk backup FILE` and `watchdesk restore FILE` (docs/storage.md). */
export function registerBackup(program: Command, ctx: CliContext): void {
  const backup = withCommon(program.command('backup'))
    .summary("copy a running console's or SQLite relay's database and config into one file")
    .description(
      "A consistent copy of the data dir's database (SQLite's online backup, taken while watchdesk runs) " +
        'with its config.json, in one SQLite file. Secrets are not in it: they stay in the OS keychain or ' +
        'the environment. PostgreSQL relays: see docs/storage.md for pg_dump.',
    )
    .argument('<file>', 'the backup file to write (must not exist yet)')
    .option('--store <url>', "a SQLite relay's store outside its data dir: sqlite:PATH")
    .action(async (file: string, options: BackupOptions) =>
      ctx.exit(await runBackup(resolve(file), options, ctx.io)),
    )
  example(backup, 'watchdesk backup ~/watchdesk-$(date +%F).backup')

  const restore = withCommon(program.command('restore'))
    .summary('restore a backup into an empty data dir')
    .description(
      'Writes the database and config.json of a backup into an empty (or new) data dir. Secrets are not in ' +
        'a backup: set them again on the new machine (watchdesk keys set, or the WATCHDESK_* environment).',
    )
    .argument('<file>', 'a file written by watchdesk backup')
    .action((file: string, options: CommonOptions) => ctx.exit(runRestore(resolve(file), options, ctx.io)))
  example(restore, 'watchdesk restore ~/watchdesk-2026-11-25.backup --data-dir /var/lib/watchdesk')
}

interface BackupOptions extends CommonOptions {
  store?: string
}

async function runBackup(file: string, options: BackupOptions, io: CliIo): Promise<number> {
  const dataDir = dataDirOf(options, io)
  if (options.store !== undefined && !options.store.startsWith('sqlite:'))
    return failure(
      io,
      'backup',
      'backup copies SQLite stores only; back up a PostgreSQL store with pg_dump (docs/storage.md#postgresql).',
      exitCodes.usage,
    )
  const database = options.store ? resolve(options.store.slice('sqlite:'.length)) : undefined
  const done = await backupDataDir(dataDir, file, version, database)
  if (!done.ok) return failWith(io, 'backup', done.error)
  const summary = done.value
  if (options.json) io.out(JSON.stringify({ ...summary, dataDir }))
  else
    io.out(
      `backed up ${dataDir} to ${summary.file}: ${summary.events} events, schema ${summary.schemaVersion}, ` +
        `${summary.config ? 'with' : 'no'} config.json, ${summary.bytes} bytes, snapshot at ${summary.takenAt}`,
    )
  return exitCodes.ok
}

function runRestore(file: string, options: CommonOptions, io: CliIo): number {
  const dataDir = dataDirOf(options, io)
  const done = restoreDataDir(file, dataDir)
  if (!done.ok) {
    failWith(io, 'restore', done.error)
    return done.error.code === 'conflict' || done.error.code === 'bad_request'
      ? exitCodes.problem
      : exitCodeFor(done.error)
  }
  const summary = done.value
  if (options.json) io.out(JSON.stringify(summary))
  else
    io.out(
      `restored ${file} into ${dataDir}: ${summary.events} events, schema ${summary.schemaVersion}, ` +
        `${summary.config ? 'with' : 'no'} config.json (taken ${summary.takenAt ?? 'at an unknown time'}). ` +
        'Secrets are not in a backup: set them again with watchdesk keys set or the environment.',
    )
  return exitCodes.ok
}
