import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { absentSecrets, stripConfigSecrets } from '../../shared/config-secrets'
import type { AbsentSecret } from '../../shared/config-secrets'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { databaseFileName, openDatabase } from './index'
import { migrations } from './migrations'
import { checkRestorable } from './schema-check'

/** The backup format (docs/storage.md): one SQLite file, the database as SQLite's online backup
 * copied it, plus one table `watchdesk_backup` (key, value) holding the data dir's config.json
 * with every credential in it left out (`configForBackup`), the schema version and when the copy
 * was taken. Secrets are not in it: the keychain's and the environment's never reach the database,
 * and config.json's (header values, URL userinfo, key/token parameters) are replaced by
 * `absentSecretMark`, which `restore` reports as values to set again. */
export const backupTable = 'watchdesk_backup'
export const backupFormat = '1'
const configFileName = 'config.json'

export interface BackupSummary {
  file: string
  bytes: number
  schemaVersion: number
  events: number
  config: boolean
  /** When the copy's snapshot was taken (ISO); every write acknowledged before it is in the copy. */
  takenAt: string
  /** The credentials of config.json the copy does not carry (where they were, never the values). */
  secretsLeftOut: AbsentSecret[]
}

/** A consistent copy of a data dir's database (the console's or a SQLite relay's), taken while it
 * runs: SQLite's backup API reads one snapshot (WAL), so writers are not stopped. */
export async function backupDataDir(
  dataDir: string,
  target: string,
  version: string,
  /** A SQLite relay's store outside its data dir (`--store sqlite:PATH`). */
  database = join(dataDir, databaseFileName),
): Promise<Result<BackupSummary>> {
  const source = database
  if (!existsSync(source))
    return err(
      'not_found',
      `${dataDir} holds no database (${source} does not exist): pass the --data-dir (or --store sqlite:PATH) of the console or relay to back up.`,
    )
  if (existsSync(target))
    return err('conflict', `${target} already exists; name a new file (a backup never overwrites one).`)
  if (!existsSync(dirname(target)))
    return err('not_found', `The folder ${dirname(target)} does not exist; create it or name another file.`)
  const opened = openDatabase(source, { readonly: true })
  if (!opened.ok) return opened
  const db = opened.value
  const partial = `${target}.partial`
  const takenAt = new Date().toISOString()
  try {
    rmSync(partial, { force: true })
    // Payment events: the copy is the operator's alone (0600) from its first byte, like the data dir.
    closeSync(openSync(partial, 'w', 0o600))
    // The first step only counts the pages; the second copies them all in one step, so the copy
    // is one snapshot even while another process keeps writing (a page-by-page copy would
    // restart at every foreign write and might never finish under load).
    await db.backup(partial, { progress: () => 0x7fffffff })
  } catch (error) {
    rmSync(partial, { force: true })
    return err('unavailable', `Could not copy ${source} to ${partial}: ${(error as Error).message}`)
  } finally {
    db.close()
  }
  const read = readConfigText(dataDir)
  if (!read.ok) {
    rmSync(partial, { force: true })
    return read
  }
  const config = configForBackup(read.value)
  if (!config.ok) {
    rmSync(partial, { force: true })
    return config
  }
  try {
    const copy = new BetterSqlite3(partial)
    try {
      copy.pragma('journal_mode = DELETE')
      const schemaVersion = copy.pragma('user_version', { simple: true }) as number
      const events = countEvents(copy)
      copy.exec(`CREATE TABLE ${backupTable} (key TEXT PRIMARY KEY, value TEXT)`)
      const put = copy.prepare(`INSERT INTO ${backupTable} (key, value) VALUES (?, ?)`)
      copy.transaction(() => {
        put.run('format', backupFormat)
        put.run('config', config.value.text)
        put.run('schema_version', String(schemaVersion))
        put.run('taken_at', takenAt)
        put.run('watchdesk_version', version)
      })()
      copy.close()
      renameSync(partial, target)
      const bytes = statSync(target).size
      return ok({
        file: target,
        bytes,
        schemaVersion,
        events,
        config: config.value.text !== null,
        takenAt,
        secretsLeftOut: config.value.leftOut,
      })
    } finally {
      if (copy.open) copy.close()
    }
  } catch (error) {
    rmSync(partial, { force: true })
    return err('unavailable', `Could not finish the backup ${target}: ${(error as Error).message}`)
  }
}

export interface RestoreSummary {
  dataDir: string
  schemaVersion: number
  events: number
  config: boolean
  takenAt: string | null
  /** The credentials the backup left out of config.json: each must be set again. */
  secretsToSet: AbsentSecret[]
}

/** Restores a backup into an empty (or absent) data dir: the database, then config.json. */
export function restoreDataDir(file: string, dataDir: string): Result<RestoreSummary> {
  if (!existsSync(file)) return err('not_found', `${file} does not exist.`)
  const target = checkRestoreTarget(dataDir)
  if (!target.ok) return target
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0)
    return err(
      'conflict',
      `${dataDir} is not empty; restore only into an empty data dir (move it aside, or pass --data-dir with a new folder).`,
    )
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const database = join(dataDir, databaseFileName)
  const partial = `${database}.restoring`
  try {
    // Streamed by the OS (a backup may be gigabytes), private before it holds a byte.
    closeSync(openSync(partial, 'w', 0o600))
    copyFileSync(file, partial)
    // copyfile gives the copy the backup file's mode; the database is 0600 whatever that was.
    chmodSync(partial, 0o600)
    const read = readBackup(partial)
    if (!read.ok) {
      rmSync(partial, { force: true })
      return read
    }
    const { meta, events } = read.value
    const config = meta.config ?? null
    if (config !== null) writeFileSync(join(dataDir, configFileName), config, { mode: 0o600 })
    renameSync(partial, database)
    return ok({
      dataDir,
      schemaVersion: Number(meta.schema_version),
      events,
      config: config !== null,
      takenAt: meta.taken_at ?? null,
      secretsToSet: secretsToSetIn(config),
    })
  } catch (error) {
    rmSync(partial, { force: true })
    return err('unavailable', `Could not restore ${file} into ${dataDir}: ${(error as Error).message}`)
  }
}

type Meta = Record<string, string | null>

/** A data dir a restore can write: a folder (or nothing yet), without the leftover of a restore
 * that was killed (named, with the command that clears it). */
function checkRestoreTarget(dataDir: string): Result<null> {
  if (!existsSync(dataDir)) return ok(null)
  if (!statSync(dataDir).isDirectory())
    return err(
      'unavailable',
      `${dataDir} is a file, not a folder: restore into a new or empty folder (pass --data-dir with one).`,
    )
  const leftover = join(dataDir, `${databaseFileName}.restoring`)
  if (!existsSync(leftover)) return ok(null)
  // A killed restore may also have written config.json (it is written before the database is
  // renamed into place); when nothing else is there, both are the restore's own.
  const others = readdirSync(dataDir).filter((n) => n !== basename(leftover))
  const clears =
    others.length === 1 && others[0] === configFileName
      ? [leftover, join(dataDir, configFileName)]
      : [leftover]
  return err(
    'conflict',
    `${dataDir} holds ${leftover}, left by a restore that did not finish (it was stopped or killed); nothing uses it. ` +
      `Clear it with: rm ${clears.map(shellQuote).join(' ')} — then run the restore again.`,
  )
}

const shellQuote = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`

/** Checks the file is a watchdesk backup this build can open, then takes the backup table out so
 * the restored database is exactly the one that was copied. */
function readBackup(file: string): Result<{ meta: Meta; events: number }> {
  let db: BetterSqlite3.Database
  try {
    db = new BetterSqlite3(file, { fileMustExist: true })
    db.pragma('schema_version')
  } catch (error) {
    return err('bad_request', `${file} is not a watchdesk backup (${(error as Error).message}).`)
  }
  try {
    const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(backupTable)
    if (!table)
      return err(
        'bad_request',
        `This file is a SQLite database but not a watchdesk backup (no ${backupTable} table).`,
      )
    const rows = db.prepare(`SELECT key, value FROM ${backupTable}`).all() as {
      key: string
      value: string | null
    }[]
    const meta: Meta = Object.fromEntries(rows.map((r) => [r.key, r.value]))
    if (meta.format !== backupFormat)
      return err(
        'bad_request',
        `The backup has format ${meta.format}; this watchdesk reads format ${backupFormat}.`,
      )
    const latest = migrations.at(-1)?.version ?? 0
    if (Number(meta.schema_version) > latest)
      return err(
        'conflict',
        `The backup has schema version ${meta.schema_version}, newer than this watchdesk knows (${latest}): upgrade watchdesk first.`,
      )
    const checked = checkRestorable(db, Number(meta.schema_version), [backupTable])
    if (!checked.ok) return checked
    db.exec(`DROP TABLE ${backupTable}`)
    db.exec('VACUUM')
    return ok({ meta, events: countEvents(db) })
  } finally {
    db.close()
  }
}

/** config.json as a backup carries it: every credential (the one rule of
 * src/shared/config-secrets.ts) replaced by `absentSecretMark`. A file that is not JSON cannot be
 * searched for credentials, so the backup is refused rather than carrying it. */
export function configForBackup(
  text: string | null,
): Result<{ text: string | null; leftOut: AbsentSecret[] }> {
  if (text === null) return ok({ text: null, leftOut: [] })
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    return err(
      'bad_request',
      `config.json is not valid JSON (${(error as Error).message}), so its credentials cannot be left out of the backup: fix the file (watchdesk config get shows where), then back up again.`,
    )
  }
  const stripped = stripConfigSecrets(parsed)
  // Nothing to leave out: the file as it was, byte for byte.
  if (stripped.absent.length === 0) return ok({ text, leftOut: [] })
  return ok({ text: JSON.stringify(stripped.config, null, 2) + '\n', leftOut: stripped.absent })
}

/** What a restored config.json lacks: the places its backup wrote `absentSecretMark`. */
function secretsToSetIn(config: string | null): AbsentSecret[] {
  if (config === null) return []
  try {
    return absentSecrets(JSON.parse(config))
  } catch {
    return []
  }
}

function readConfigText(dataDir: string): Result<string | null> {
  try {
    return ok(readFileSync(join(dataDir, configFileName), 'utf8'))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(null)
    return err('unavailable', `Cannot read ${join(dataDir, configFileName)}: ${(error as Error).message}`)
  }
}

function countEvents(db: BetterSqlite3.Database): number {
  const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'`).get()
  if (!table) return 0
  return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n
}
