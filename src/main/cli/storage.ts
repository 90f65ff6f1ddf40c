import { formatDateTime, zoneLabel } from '../../shared/time'
import { join } from 'node:path'
import type { Command } from 'commander'
import { databaseFileName } from '../db'
import { formatBytes } from '../../shared/bytes'
import { readRetentionState, retentionKinds } from '../db/retention'
import type { RetentionState } from '../db/retention'
import { measureStorage } from '../db/usage'
import type { StorageUsage } from '../db/usage'
import type { CliContext, CommonOptions } from './common'
import { configFor, dataDirOf, example, openConsoleDatabaseReadOnly, withCommon } from './common'
import { exitCodes, failure } from './exit'
import type { CliIo } from './io'

/** `watchdesk storage`: disk use of the data dir, read while the console or relay runs. */
export function registerStorage(program: Command, ctx: CliContext): void {
  const storage = withCommon(program.command('storage'))
    .description(
      'Disk use of the data dir (read-only, while watchdesk runs): its size, the database size, events ' +
        'stored, the oldest event and the free space; exit 1 with a warning when free space is below ' +
        'storage.warnFreeMb.',
    )
    .action((options: CommonOptions) => ctx.exit(runStorage(options, ctx.io)))
  example(storage, 'watchdesk storage', 'watchdesk storage --json | jq .freeBytes')
}

function runStorage(options: CommonOptions, io: CliIo): number {
  const loaded = configFor(options, io)
  if (!loaded.ok) return failure(io, 'storage', loaded.error.message, loaded.error.exit)
  const dataDir = dataDirOf(options, io)
  const db = openConsoleDatabaseReadOnly('storage', options, io, 'serve, relay or the app')
  if (!db.ok) return db.error
  const file = join(dataDir, databaseFileName)
  let usage: StorageUsage & { retention: RetentionState }
  try {
    usage = {
      ...measureStorage(db.value, dataDir, file, loaded.value.config.storage.warnFreeMb),
      retention: readRetentionState(db.value),
    }
  } finally {
    db.value.close()
  }
  if (options.json) io.out(JSON.stringify(usage))
  else io.out(storageLines(usage).join('\n'))
  if (usage.warning) {
    if (options.json) io.err(`watchdesk storage: ${usage.warning}`)
    return exitCodes.problem
  }
  return exitCodes.ok
}

function storageLines(usage: StorageUsage & { retention: RetentionState }): string[] {
  const r = usage.retention
  const when = (t: number | null) => (t === null ? 'not yet' : formatDateTime(t))
  const rows: [string, string][] = [
    ['data dir', `${usage.dataDir}  ${formatBytes(usage.dataDirBytes)}`],
    ['database', `${usage.database}  ${formatBytes(usage.databaseBytes)}`],
    ['events stored', String(usage.events)],
    ['oldest event', usage.oldestEventAt === null ? '—' : formatDateTime(usage.oldestEventAt)],
    [
      'free space',
      usage.freeBytes === null
        ? 'unknown'
        : `${formatBytes(usage.freeBytes)}${usage.warning ? '  LOW' : ''} (warning below ${usage.warnFreeMb} MB)`,
    ],
    ['retention last run', `${when(r.lastRunAt)}${r.lastRunMs === null ? '' : ` (${r.lastRunMs} ms)`}`],
    ['removed (last run)', retentionKinds.map((k) => `${k} ${r.removed[k]}`).join(', ')],
    ['retention next run', r.nextRunAt === null ? 'when watchdesk runs' : when(r.nextRunAt)],
  ]
  if (r.error) rows.push(['retention error', r.error])
  rows.push(['times in', zoneLabel(Date.now())])
  const width = Math.max(...rows.map(([label]) => label.length))
  const lines = rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`)
  if (usage.warning) lines.push('', `warning: ${usage.warning}`)
  return lines
}
