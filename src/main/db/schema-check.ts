import BetterSqlite3 from 'better-sqlite3'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { migrations } from './migrations'

/** What a restore checks before it puts a database in place (issue 29): SQLite's integrity check,
 * a schema version this watchdesk knows, and the schema exactly as its migrations make it at that
 * version — no table, index, trigger or view more, none less, none changed. A backup is never
 * edited after `watchdesk backup` wrote it, so any difference means the file is not what it says. */

interface SchemaObject {
  type: string
  name: string
  tbl_name: string
  sql: string | null
}

const nothingRestored = 'Nothing was restored.'

/** Runs every check on `db` (the copy being restored, its backup table already set apart in
 * `skip`); `declared` is the schema version the backup's own table records. */
export function checkRestorable(
  db: BetterSqlite3.Database,
  declared: number,
  skip: readonly string[],
): Result<number> {
  const integrity = checkIntegrity(db)
  if (!integrity.ok) return integrity
  const level = db.pragma('user_version', { simple: true }) as number
  const known = migrations.map((m) => m.version)
  const latest = known.at(-1) ?? 0
  if (level !== declared)
    return err(
      'bad_request',
      `The backup records schema version ${declared} but its database is at version ${level}: the file was changed after watchdesk wrote it. ${nothingRestored}`,
    )
  if (level > latest)
    return err(
      'conflict',
      `The backup has schema version ${level}, newer than this watchdesk knows (${latest}): upgrade watchdesk first.`,
    )
  if (!known.includes(level))
    return err(
      'bad_request',
      `The backup's database is at schema version ${level}, which no watchdesk makes (this one knows ${known[0] ?? 0}–${latest}). ${nothingRestored}`,
    )
  const differences = compareSchemas(schemaOf(db, skip), referenceSchema(level))
  if (differences.length > 0)
    return err(
      'bad_request',
      `The backup's schema is not the one watchdesk makes at schema version ${level}: ${differences.join('; ')}. A backup is never edited after watchdesk writes it, so this file cannot be trusted. ${nothingRestored} Take a new backup with watchdesk backup.`,
    )
  return ok(level)
}

function checkIntegrity(db: BetterSqlite3.Database): Result<null> {
  const rows = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check)
  if (rows.length === 1 && rows[0] === 'ok') return ok(null)
  return err(
    'bad_request',
    `The backup is damaged: SQLite's integrity check found ${rows.length} problem${rows.length === 1 ? '' : 's'} (first: ${rows[0]}). ${nothingRestored} Restore another backup, or take a new one.`,
  )
}

/** sqlite_master without SQLite's own objects (sqlite_sequence, sqlite_stat1, autoindexes). */
function schemaOf(db: BetterSqlite3.Database, skip: readonly string[]): Map<string, SchemaObject> {
  const rows = db
    .prepare(
      `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'`,
    )
    .all() as SchemaObject[]
  return new Map(rows.filter((r) => !skip.includes(r.tbl_name)).map((r) => [`${r.type} ${r.name}`, r]))
}

/** A fresh in-memory database migrated to `level`: the schema a backup at that level must have. */
function referenceSchema(level: number): Map<string, SchemaObject> {
  const db = new BetterSqlite3(':memory:')
  try {
    db.pragma('foreign_keys = ON')
    for (const migration of migrations.filter((m) => m.version <= level))
      db.transaction(() => migration.up(db)).immediate()
    return schemaOf(db, [])
  } finally {
    db.close()
  }
}

const describe = (o: SchemaObject) =>
  o.type === 'table' ? `the table "${o.name}"` : `the ${o.type} "${o.name}" on ${o.tbl_name}`

function compareSchemas(found: Map<string, SchemaObject>, wanted: Map<string, SchemaObject>): string[] {
  const out: string[] = []
  for (const [key, o] of found) {
    const expected = wanted.get(key)
    if (!expected) out.push(`${describe(o)} is extra`)
    else if (normalise(expected.sql) !== normalise(o.sql) || expected.tbl_name !== o.tbl_name)
      out.push(`${describe(o)} differs from the migrations'`)
  }
  for (const [key, o] of wanted) if (!found.has(key)) out.push(`${describe(o)} is missing`)
  return out
}

const normalise = (sql: string | null) => (sql ?? '').replace(/\s+/g, ' ').trim()
