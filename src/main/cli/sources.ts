import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { sourceNamePattern } from '../../shared/config'
import { loadConfig, resolveDataDir, saveConfig } from '../config'
import { databaseFileName, openDatabase } from '../db'
import { fetchPage } from '../relay'
import { accounts, createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import { parseCommandArgs } from './args'
import { formatTable } from './io'
import type { CliIo } from './io'
import { readSecretFromTerminal } from './payments-common'

export const sourcesUsage = `watchdesk sources add NAME URL | sources list [--json] | sources remove NAME
  Relays this console follows: it catches up from its last cursor, then follows the live stream.
  The relay token is read from stdin or a hidden prompt (never an argument) and kept in the keychain
  as source-token:NAME; the URL goes to sources.NAME.url in config.json.
    watchdesk relay token create laptop --store … | watchdesk sources add office https://relay.example:7422`

export interface SourcesCliOptions {
  dataDir: string
  json: boolean
  secrets?: SecretStore
  readSecret?: (prompt: string) => Promise<string>
}

export async function sourcesCommand(
  argv: string[],
  io: CliIo,
  deps: Pick<SourcesCliOptions, 'secrets' | 'readSecret'> = {},
): Promise<number> {
  const args = parseCommandArgs(argv, {})
  if (!args.ok) return fail(io, args.error.message, 2)
  const [action, name, url, ...extra] = args.value.positionals
  const options: SourcesCliOptions = {
    dataDir: resolveDataDir(args.value.values['data-dir'] as string | undefined, io.env),
    json: args.value.values.json === true,
    ...deps,
  }
  if (action === 'list') return listSources(options, io)
  if (action === 'add') {
    if (!name || !url) return fail(io, 'sources add needs a NAME and the relay URL.', 2)
    if (extra.length > 0)
      return fail(
        io,
        'sources add reads the token from stdin, not from the command line (it would show in ps).',
        2,
      )
    return addSource(name, url, options, io)
  }
  if (action === 'remove') {
    if (!name) return fail(io, 'sources remove needs a NAME.', 2)
    return removeSource(name, options, io)
  }
  return fail(io, `unknown action "${action ?? ''}".\n\n${sourcesUsage}`, 2)
}

const secretsOf = (options: SourcesCliOptions, io: CliIo) =>
  options.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env)

export async function addSource(
  name: string,
  url: string,
  options: SourcesCliOptions,
  io: CliIo,
): Promise<number> {
  if (!sourceNamePattern.test(name))
    return fail(io, `"${name}" is not a source name: letters, digits, _ . - (at most 64).`, 2)
  if (!/^https?:\/\/[^\s]+$/.test(url)) return fail(io, `"${url}" is not an http:// or https:// URL.`, 2)
  const loaded = loadConfig(options.dataDir)
  if (!loaded.ok) return fail(io, loaded.error.message, 3)
  let token: string
  try {
    token = (
      await (options.readSecret ?? readSecretFromTerminal)(`Relay token for "${name}" (input hidden): `)
    ).trim()
  } catch {
    return fail(io, 'cancelled; nothing was stored.')
  }
  if (!token)
    return fail(io, 'No token arrived on stdin; nothing was stored. Pipe it or type it at the prompt.', 2)
  const check = await fetchPage(url, token, '0', 1, true, AbortSignal.timeout(10_000))
  const stored = await secretsOf(options, io).set(accounts.sourceToken(name), token)
  if (!stored.ok) return fail(io, stored.error.message, 3)
  const saved = loaded.value.saved
  const sources = { ...((saved.sources as Record<string, unknown> | undefined) ?? {}), [name]: { url } }
  const written = saveConfig(options.dataDir, { ...saved, sources })
  if (!written.ok) return fail(io, written.error.message, 3)
  io.out(`added the source "${name}" (${url}); its token is in the keychain as source-token:${name}`)
  if (check.ok)
    io.out(
      `the relay accepts the token and holds ${check.value.events.length + (check.value.remaining ?? 0)} events`,
    )
  else io.err(`watchdesk sources: saved, but the relay cannot be used yet: ${check.error.message}`)
  return check.ok ? 0 : 1
}

export async function removeSource(name: string, options: SourcesCliOptions, io: CliIo): Promise<number> {
  const loaded = loadConfig(options.dataDir)
  if (!loaded.ok) return fail(io, loaded.error.message, 3)
  const saved = loaded.value.saved
  const sources = { ...((saved.sources as Record<string, unknown> | undefined) ?? {}) }
  const known = name in sources
  delete sources[name]
  const written = saveConfig(options.dataDir, { ...saved, sources })
  if (!written.ok) return fail(io, written.error.message, 3)
  const removed = await secretsOf(options, io).delete(accounts.sourceToken(name))
  if (!known && !(removed.ok && removed.value))
    return fail(io, `no source is named "${name}" (watchdesk sources list).`)
  io.out(`removed the source "${name}" and its token; events already synced from it stay`)
  return 0
}

export async function listSources(options: SourcesCliOptions, io: CliIo): Promise<number> {
  const loaded = loadConfig(options.dataDir)
  if (!loaded.ok) return fail(io, loaded.error.message, 3)
  const secrets = secretsOf(options, io)
  const cursors = new Map<string, string>()
  const file = join(options.dataDir, databaseFileName)
  if (existsSync(file)) {
    const db = openDatabase(file, { readonly: true })
    if (db.ok) {
      try {
        for (const row of db.value.prepare('SELECT name, cursor FROM source_cursors').all() as {
          name: string
          cursor: string
        }[])
          cursors.set(row.name, row.cursor)
      } catch {
        // an older database without the table: no cursors yet
      } finally {
        db.value.close()
      }
    }
  }
  const rows = await Promise.all(
    Object.entries(loaded.value.config.sources).map(async ([name, s]) => {
      const token = await secrets.get(accounts.sourceToken(name))
      return {
        name,
        url: s.url,
        enabled: s.enabled !== false,
        tokenStored: token.ok && !!token.value,
        cursor: cursors.get(name) ?? null,
      }
    }),
  )
  if (options.json) {
    for (const r of rows) io.out(JSON.stringify(r))
    return 0
  }
  if (rows.length === 0) {
    io.out('No sources. Add a relay with: watchdesk sources add NAME URL   (the token is read from stdin)')
    return 0
  }
  io.out(
    formatTable(
      ['name', 'url', 'token', 'cursor'],
      rows.map((r) => [
        r.name,
        r.url,
        r.tokenStored ? 'in keychain' : 'MISSING',
        r.cursor ?? 'not synced yet',
      ]),
    ),
  )
  return 0
}

function fail(io: CliIo, message: string, code = 1): number {
  io.err(`watchdesk sources: ${message}`)
  return code
}
