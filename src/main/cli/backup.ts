import { resolve } from 'node:path'
import type { Command } from 'commander'
import { absentSecretMark } from '../../shared/config-secrets'
import type { AbsentSecret } from '../../shared/config-secrets'
import { backupDataDir, restoreDataDir } from '../db/backup'
import { version } from '../version'
import type { CliContext, CommonOptions } from './common'
import { dataDirOf, example, withCommon } from './common'
import { exitCodeFor, exitCodes, failWith, failure } from './exit'
import type { CliIo } from './io'

/** `watchdesk backup FILE` and `watchdesk restore FILE` (docs/storage.md). */
export function registerBackup(program: Command, ctx: CliContext): void {
  const backup = withCommon(program.command('backup'))
    .description(
      "A consistent copy of the data dir's database (SQLite's online backup, taken while watchdesk runs) " +
        'with its config.json, in one SQLite file. Secrets are not in it: they stay in the OS keychain or ' +
        "the environment, and config.json's credentials (header values, URL user and password, key/token " +
        'parameters) are left out and named. PostgreSQL relays: see docs/storage.md for pg_dump.',
    )
    .argument('<file>', 'the backup file to write (must not exist yet)')
    .option('--store <url>', "a SQLite relay's store outside its data dir: sqlite:PATH")
    .action(async (file: string, options: BackupOptions) =>
      ctx.exit(await runBackup(resolve(file), options, ctx.io)),
    )
  example(backup, 'watchdesk backup ~/watchdesk-$(date +%F).backup')

  const restore = withCommon(program.command('restore'))
    .description(
      'Writes the database and config.json of a backup into an empty (or new) data dir. Secrets are not in ' +
        'a backup: set them again on the new machine (watchdesk keys set, or the WATCHDESK_* environment); ' +
        "config.json's credentials the backup left out are listed, each with how to set it again.",
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
        `${summary.config ? 'with' : 'no'} config.json, ${summary.bytes} bytes, snapshot at ${summary.takenAt}` +
        leftOutSentence(summary.secretsLeftOut),
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
  if (!options.json) for (const line of secretsToSetLines(summary.secretsToSet)) io.out(line)
  return exitCodes.ok
}

const leftOutSentence = (leftOut: readonly AbsentSecret[]): string =>
  leftOut.length === 0
    ? ''
    : `; ${leftOut.length} credential${leftOut.length === 1 ? '' : 's'} of config.json left out (${leftOut.map((s) => s.key).join(', ')}): restore names them to set again`

/** What `restore` says about the credentials the backup left out: each place, and how to set it. */
export function secretsToSetLines(toSet: readonly AbsentSecret[]): string[] {
  if (toSet.length === 0) return []
  return [
    `${toSet.length} credential${toSet.length === 1 ? ' was' : 's were'} left out of the backup and must be set again (config.json holds ${absentSecretMark} there until then):`,
    ...toSet.map((s) => `  ${s.key}: ${s.what}; ${howToSet(s.key)}`),
  ]
}

/** Settings, or `config set` on the key (a list item: the whole list, as config set cannot
 * address one item). */
function howToSet(key: string): string {
  const parts = key.split('.')
  if (parts[0] === 'chains' && parts[2] === 'references')
    return `in Settings › Chains (remove the reference and add it again), or watchdesk config set ${parts.slice(0, 3).join('.')} '[…]' with the whole list`
  if (parts.at(-2) === 'headers') return `watchdesk config set ${key} VALUE`
  const where = parts[0] === 'forward' ? 'Settings › Forward targets' : 'Settings'
  return `in ${where}, or watchdesk config set ${key} URL (the whole URL, credentials included)`
}
