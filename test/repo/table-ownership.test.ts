import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { contributions } from '../../src/main/contributions'
import { dbTables } from '../../src/main/db/reads'
import type { Contribution } from '../../src/main/contribution'

const root = join(import.meta.dirname, '..', '..')
const main = join(root, 'src', 'main')

/** The capabilities that build on another's tables (eslint.config.js `buildsOn`): a relay's store
 * and a source's commits are the webhooks capability's events. */
const buildsOn: Record<string, string[]> = { relay: ['webhooks'], sources: ['webhooks'] }
/** Where tables are created and changed: they name every table by design. */
const migrations = [/^src\/main\/db\/migrations\//, /^src\/main\/relay\/pg-migrations\.ts$/]

const owners: Contribution[] = [...contributions, dbTables]
const ownerOf = new Map(owners.flatMap((o) => o.tables.map((t) => [t, o.name] as const)))

/** The tables `text` names in SQL (a keyword before the name), or as a quoted name of its own
 * (`'forward_outbox'`, a table named in a list to build SQL from). */
export function tablesNamed(text: string): Set<string> {
  const named = new Set<string>()
  const sql = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE(?:\s+IF\s+(?:NOT\s+)?EXISTS)?)\s+([a-z_][a-z0-9_]*)\b(?!\.)/g
  for (const [, name] of text.matchAll(sql)) if (ownerOf.has(name!)) named.add(name!)
  for (const table of ownerOf.keys())
    if (table.includes('_') && new RegExp(`['"\`]${table}['"\`]`).test(text)) named.add(table)
  return named
}

/** The module a file of src/main belongs to: its folder, or the file itself (services, api.ts). */
const moduleOf = (file: string) => file.split('/')[2]!.replace(/\.ts$/, '')

/** The tables a module may name: its own, those of what it builds on, the ones it declares it
 * reads, and the database foundation's (`meta`: every module keeps its small state there). */
function allowed(module: string): Set<string> {
  const mine = owners.filter(
    (o) => o.name === module || o.name === dbTables.name || (buildsOn[module] ?? []).includes(o.name),
  )
  const declared = owners.find((o) => o.name === module)?.reads ?? []
  return new Set([...mine.flatMap((o) => o.tables), ...declared.map((r) => r.table)])
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
}

/** `file: table (owner)` for each table a file names that its module does not own. */
function strangers(files: { file: string; text: string }[]): string[] {
  return files.flatMap(({ file, text }) => {
    const mayName = allowed(moduleOf(file))
    return [...tablesNamed(text)]
      .filter((t) => !mayName.has(t))
      .map((t) => `${file}: ${t} (owned by ${ownerOf.get(t)})`)
  })
}

describe('table ownership: SQL names only the tables its module owns', () => {
  const files = sourceFiles(main)
    .map((path) => ({ file: relative(root, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }))
    .filter(({ file }) => !migrations.some((m) => m.test(file)))

  it('every table the migrations create has one owner', () => {
    const created = sourceFiles(join(main, 'db', 'migrations')).flatMap((path) =>
      [...readFileSync(path, 'utf8').matchAll(/CREATE TABLE (?:IF NOT EXISTS )?([a-z_]+)/g)].map(
        (m) => m[1]!,
      ),
    )
    expect(created.length).toBeGreaterThan(10)
    expect(created.filter((t) => !ownerOf.has(t))).toEqual([])
    const claimed = owners.flatMap((o) => o.tables)
    expect(claimed.length).toBe(new Set(claimed).size)
  })

  it('no file names another capability’s table outside the migrations and the declared reads', () => {
    expect(strangers(files)).toEqual([])
  })

  it('retention (a foundation) names no capability’s table at all: the capabilities declare what ages', () => {
    const retention = files.find((f) => f.file === 'src/main/db/retention.ts')!
    expect([...tablesNamed(retention.text)].filter((t) => !dbTables.tables.includes(t as 'meta'))).toEqual([])
    // Nor does it spell a capability's convention: the keep rules are the capabilities' own.
    expect(retention.text).not.toMatch(/'pending'|'failing'|'event:'/)
  })

  it('catches SQL naming a stranger’s table, in a statement or as a quoted name', () => {
    expect(
      strangers([
        { file: 'src/main/cli/probe.ts', text: "db.prepare('SELECT name FROM source_cursors')" },
        { file: 'src/main/db/probe.ts', text: 'DELETE FROM alert_log WHERE t < @cutoff' },
        { file: 'src/main/relay/probe.ts', text: "['forward_outbox'].map((t) => `UPDATE ${t} SET x = 1`)" },
        { file: 'src/main/forward/probe.ts', text: 'SELECT body FROM events WHERE seq = ?' },
        { file: 'src/main/sources/probe.ts', text: 'SELECT id FROM events WHERE source = ?' },
      ]),
    ).toEqual([
      'src/main/cli/probe.ts: source_cursors (owned by sources)',
      'src/main/db/probe.ts: alert_log (owned by alerts)',
      'src/main/relay/probe.ts: forward_outbox (owned by forward)',
    ])
  })
})
