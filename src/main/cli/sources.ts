import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { sourceNamePattern } from '../../shared/config'
import { loadConfig, openConfigStore } from '../config'
import { databaseFileName, openDatabase } from '../db'
import { isLoopback } from '../relay'
import { fetchPage, sourceCursors } from '../sources'
import { maskUrlSecrets } from '../../shared/mask'
import { accounts, createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import type { Command } from 'commander'
import type { CliContext, CommonOptions } from './common'
import { dataDirOf, example, withCommon } from './common'
import { exitCodes } from './exit'
import { inert } from '../../shared/inert'
import { printList } from './io'
import type { CliIo } from './io'
import { readSecretFromTerminal } from './payments-common'

export interface SourcesCliOptions {
  dataDir: string
  json: boolean
  secrets?: SecretStore
  readSecret?: (prompt: string) => Promise<string>
}

export function registerSources(program: Command, ctx: CliContext): void {
  const sources = program
    .command('sources')
    .description(
      'Relays this console follows: it catches up from its last cursor, then follows the live stream. The relay token is read from stdin or a hidden prompt (never an argument) and kept in the keychain as source-token:NAME; the URL goes to sources.NAME.url in config.json.',
    )
  const optionsOf = (command: Command): SourcesCliOptions => {
    const options = command.opts() as CommonOptions
    return {
      dataDir: dataDirOf(options, ctx.io),
      json: options.json === true,
      ...(ctx.deps.secrets ? { secrets: ctx.deps.secrets } : {}),
      ...(ctx.deps.readSecret ? { readSecret: ctx.deps.readSecret } : {}),
    }
  }
  const add = withCommon(sources.command('add'), { json: false })
    .summary('follow a relay (the token from stdin or a hidden prompt)')
    .argument('<name>', 'a name for the relay: letters, digits, _ . -')
    .argument('<url>', "the relay's sync URL, e.g. https://relay.example:7422")
    .argument('[extra...]')
    .action(async (name: string, url: string, extra: string[], _o: unknown, command: Command) => {
      if (extra.length > 0)
        return ctx.exit(
          fail(
            ctx.io,
            'sources add reads the token from stdin, not from the command line (it would show in ps).',
            exitCodes.usage,
          ),
        )
      ctx.exit(await addSource(name, url, optionsOf(command), ctx.io))
    })
  example(
    add,
    'watchdesk relay token create laptop --store … | watchdesk sources add office https://relay.example:7422',
  )
  withCommon(sources.command('list'))
    .summary('the relays followed, their token, cursor and how far behind this console is')
    .action(async (_o: unknown, command: Command) => ctx.exit(await listSources(optionsOf(command), ctx.io)))
  withCommon(sources.command('remove'), { json: false })
    .summary('stop following a relay and forget its token (synced events stay)')
    .argument('<name>')
    .action(async (name: string, _o: unknown, command: Command) =>
      ctx.exit(await removeSource(name, optionsOf(command), ctx.io)),
    )
}

/** The one configuration writer (config/store.ts): the change applies to the file as it is now. */
async function updateSources(
  dataDir: string,
  change: (sources: Record<string, unknown>) => void,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const store = openConfigStore({ dataDir })
  if (!store.ok) return { ok: false, message: store.error.message }
  try {
    const written = await store.value.update((saved) => {
      const sources = { ...((saved.sources as Record<string, unknown> | undefined) ?? {}) }
      change(sources)
      return { ...saved, sources }
    })
    return written.ok ? { ok: true } : { ok: false, message: written.error.message }
  } finally {
    store.value.close()
  }
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
  // The relay's webhook listener answers every other path with this 404: a URL with the wrong port.
  if (!check.ok && /webhooks go to \/webhooks/.test(check.error.message))
    return fail(
      io,
      `${url} is the relay's webhook listener port (--listener-port, 7421); the sync API is --port (7422): watchdesk sources add ${name} ${withPort(url, 7422)}. Nothing was stored.`,
      2,
    )
  // A refused token is not kept (like `keys set`): nothing to page for later.
  if (!check.ok && check.error.code === 'unauthorized')
    return fail(
      io,
      `the relay at ${maskUrlSecrets(url)} refused the token (${inert(check.error.message)}); nothing was stored. Create one on the relay (watchdesk relay token create ${name}) and run this again.`,
      2,
    )
  const stored = await secretsOf(options, io).set(accounts.sourceToken(name), token)
  if (!stored.ok) return fail(io, stored.error.message, 3)
  const written = await updateSources(options.dataDir, (sources) => {
    sources[name] = { url }
  })
  if (!written.ok) return fail(io, written.message, 3)
  io.out(
    `added the source "${name}" (${maskUrlSecrets(url)}); its token is in the keychain as source-token:${name}`,
  )
  const exposed = cleartextWarning(url)
  if (exposed) io.out(`warning: ${exposed}`)
  if (check.ok)
    io.out(
      `the relay accepts the token and holds ${check.value.events.length + (check.value.remaining ?? 0)} events`,
    )
  else io.err(`watchdesk sources: saved, but the relay cannot be used yet: ${inert(check.error.message)}`)
  return check.ok ? 0 : 1
}

/** An `http://` relay that is not on this machine: the token and every event cross the network in
 * clear text. Said, not refused (a private network may be trusted). */
export function cleartextWarning(url: string): string | null {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return null
  }
  if (u.protocol !== 'http:' || isLoopback(u.hostname)) return null
  return `${u.host} is reached over plain http://: the relay token and every event cross the network unencrypted. Serve the relay over TLS (--tls-cert/--tls-key or a proxy, see docs/relay.md) and add it as https://.`
}

export async function removeSource(name: string, options: SourcesCliOptions, io: CliIo): Promise<number> {
  const loaded = loadConfig(options.dataDir)
  if (!loaded.ok) return fail(io, loaded.error.message, 3)
  const known = name in loaded.value.config.sources
  const written = await updateSources(options.dataDir, (sources) => {
    delete sources[name]
  })
  if (!written.ok) return fail(io, written.message, 3)
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
        for (const row of sourceCursors(db.value)) cursors.set(row.name, row.cursor)
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
      const enabled = s.enabled !== false
      const tokenStored = token.ok && !!token.value
      const cursor = cursors.get(name) ?? null
      // Asked now, with a deadline: the state is what the relay answers, not a remembered one;
      // asked from this console's cursor, the answer also says how far behind it is.
      const check =
        enabled && token.ok && token.value
          ? await fetchPage(s.url, token.value, cursor ?? '0', 1, true, AbortSignal.timeout(5_000))
          : null
      const state = !enabled
        ? 'disabled'
        : !tokenStored
          ? 'no token'
          : check?.ok
            ? 'reachable'
            : check?.error.code === 'unauthorized'
              ? 'refused'
              : 'unreachable'
      return {
        name,
        url: maskUrlSecrets(s.url),
        enabled,
        state,
        problem: check && !check.ok ? check.error.message : !token.ok ? token.error.message : null,
        tokenStored,
        cursor,
        /** Events the relay holds after this console's cursor (null: the relay was not asked). */
        behind: check?.ok ? check.value.events.length + (check.value.remaining ?? 0) : null,
      }
    }),
  )
  printList(io, options.json, rows, {
    empty: 'No sources. Add a relay with: watchdesk sources add NAME URL   (the token is read from stdin)',
    headers: ['name', 'state', 'url', 'token', 'cursor', 'behind'],
    row: (r) => [
      r.name,
      r.state,
      r.url,
      r.tokenStored ? 'in keychain' : 'MISSING',
      r.cursor ?? 'not synced yet',
      r.behind === null ? '—' : r.behind === 0 ? 'up to date' : `${r.behind.toLocaleString('en-US')} to sync`,
    ],
  })
  // The problem quotes the relay's own answer: one line, its controls and newlines escaped.
  if (!options.json)
    for (const r of rows) if (r.problem) io.err(`watchdesk sources: ${r.name}: ${inert(r.problem)}`)
  return 0
}

function withPort(url: string, port: number): string {
  try {
    const u = new URL(url)
    u.port = String(port)
    return u.toString().replace(/\/$/, '')
  } catch {
    return url
  }
}

function fail(io: CliIo, message: string, code = 1): number {
  io.err(`watchdesk sources: ${message}`)
  return code
}
