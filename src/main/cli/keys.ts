import type { Command } from 'commander'
import { validPrefixesSentence } from '../../shared/payments'
import type { KeyTest } from '../../shared/contract/payments'
import type { PaymentsService } from '../payments'
import type { CliContext } from './common'
import { configExit, example, withCommon } from './common'
import type { CommonOptions } from './common'
import { exitCodes, failWith, failure } from './exit'
import type { ExitCode } from './exit'
import { formatTable } from './io'
import type { CliIo } from './io'
import { liveMarked, paymentsFor, readSecretFromTerminal } from './payments-common'

export function registerKeys(program: Command, ctx: CliContext): void {
  const keys = program
    .command('keys')
    .description(
      `API keys live only in the OS keychain (account api-key:NAME), shown masked (sk_live_…9f3a). ${validPrefixesSentence} WATCHDESK_API_KEY, when set, is the key "env".`,
    )
  example(keys, 'printf %s "$KEY" | watchdesk keys set main', 'watchdesk keys list')

  const withService =
    (action: (payments: PaymentsService, io: CliIo) => Promise<ExitCode>) =>
    async (options: CommonOptions): Promise<ExitCode> => {
      const service = paymentsFor(options, ctx.io, ctx.deps)
      if (!service.ok) return failure(ctx.io, 'keys', service.error.message, configExit(service.error))
      return action(service.value, ctx.io)
    }

  const set = withCommon(keys.command('set'), { json: false })
    .description(
      'Store an API key, read from stdin or a hidden prompt, never from the command line (arguments are visible to every user in ps).',
    )
    .argument('<name>', 'a name for the key, e.g. main')
    .argument('[key]', 'refused: pipe the key instead')
    .option('--activate', 'make it the active key')
    .option('--keep', 'store it even when the service refuses it (remove it later with "keys remove NAME")')
    .action(
      async (
        name: string,
        key: string | undefined,
        options: CommonOptions & { activate?: boolean; keep?: boolean },
      ) => {
        if (key !== undefined)
          return ctx.exit(
            failure(
              ctx.io,
              'keys',
              'keys set takes the key on stdin, not as an argument (arguments are visible in ps and shell history). Pipe it: printf %s "$KEY" | watchdesk keys set NAME',
              exitCodes.usage,
            ),
          )
        const flags = { activate: options.activate === true, keep: options.keep === true }
        ctx.exit(await withService((p, io) => setKey(p, io, name, flags, ctx))(options))
      },
    )
  example(
    set,
    'printf %s "$KEY" | watchdesk keys set main --activate',
    'watchdesk keys set main   (then paste)',
  )

  const list = withCommon(keys.command('list'))
    .description('The stored keys, masked, with their kind, plan and rate limits; * marks the active one.')
    .action(async (options: CommonOptions) =>
      ctx.exit(await withService((p, io) => listKeys(p, io, options.json === true))(options)),
    )
  example(list, 'watchdesk keys list --json')

  const select = withCommon(keys.command('select'), { json: false })
    .description('Make a stored key the active one (saved as apiKeyName; a running console follows).')
    .argument('<name>')
    .action(async (name: string, options: CommonOptions) =>
      ctx.exit(
        await withService(async (p, io) => {
          const selected = await p.selectKey(name)
          if (!selected.ok) return failWith(io, 'keys', selected.error)
          io.out(`the active key is now "${name}"`)
          return exitCodes.ok
        })(options),
      ),
    )
  example(select, 'watchdesk keys select main')

  const remove = withCommon(keys.command('remove'), { json: false })
    .description('Remove a key from the keychain.')
    .argument('<name>')
    .action(async (name: string, options: CommonOptions) =>
      ctx.exit(
        await withService(async (p, io) => {
          const removed = await p.removeKey(name)
          if (!removed.ok) return failWith(io, 'keys', removed.error)
          io.out(`removed the key "${name}" from the OS keychain`)
          return exitCodes.ok
        })(options),
      ),
    )
  example(remove, 'watchdesk keys remove old')
}

async function setKey(
  payments: PaymentsService,
  io: CliIo,
  name: string,
  flags: { activate: boolean; keep: boolean },
  ctx: CliContext,
): Promise<ExitCode> {
  let secret: string
  try {
    secret = await (ctx.deps.readSecret ?? readSecretFromTerminal)(`API key for "${name}" (input hidden): `)
  } catch {
    io.err('Cancelled')
    return exitCodes.problem
  }
  if (!secret.trim())
    return failure(
      io,
      'keys',
      'No key arrived on stdin; nothing was stored. Pipe the key or type it at the prompt.',
      exitCodes.usage,
    )
  // Tested before it is stored: a key the service refuses is not kept unless --keep.
  const stored = await payments.setKey(name, secret, flags.activate, flags.keep)
  if (!stored.ok) return failWith(io, 'keys', stored.error)
  const { key: k, test } = stored.value
  const mark = k.kind === 'live' ? 'LIVE  ' : ''
  io.out(
    `${mark}stored ${k.kind} key "${k.name}" (${k.masked}) in the OS keychain as api-key:${k.name}${k.active ? '; it is the active key' : ''}`,
  )
  if (k.kind === 'live') io.out(`${mark}This is a LIVE key: writes move real funds and ask for confirmation.`)
  if (test === null) {
    io.out(
      `${mark}not tested yet: apiBaseUrl is not set (watchdesk config set apiBaseUrl URL), then: watchdesk keys set ${name}`,
    )
    return exitCodes.ok
  }
  return reportKeyTest(io, test, mark)
}

/** What the test said: whether the key works, the businesses it reaches, and for each feature the
 * scope it lacks. Exit 1 when it does not work or lacks a scope. */
function reportKeyTest(io: CliIo, t: KeyTest, mark: string): ExitCode {
  if (t.baseUrlNote) io.out(`${mark}${t.baseUrlNote}`)
  if (t.refused)
    io.out(
      `${mark}kept although the service refused it (--keep); remove it with: watchdesk keys remove ${t.keyName ?? 'NAME'}`,
    )
  io.out(`${mark}${t.works ? 'tested' : 'test failed'}: ${t.message}`)
  const lacking = t.features.filter((f) => f.state === 'missing')
  if (lacking.length > 0) {
    io.out(`${mark}missing scopes: ${t.missingScopes.join(', ')}`)
    for (const f of lacking) io.out(`${mark}  ${f.label}: needs ${f.scope}`)
  } else if (t.missingScopes.length > 0) io.out(`${mark}missing scopes: ${t.missingScopes.join(', ')}`)
  return t.works && t.missingScopes.length === 0 ? exitCodes.ok : exitCodes.problem
}

async function listKeys(payments: PaymentsService, io: CliIo, json: boolean): Promise<ExitCode> {
  const status = await payments.status()
  if (!status.ok) return failWith(io, 'keys', status.error)
  const { keys, keychain, live } = status.value
  const unreachable = keychain.reachable ? exitCodes.ok : exitCodes.cannotRun
  if (json) {
    io.out(JSON.stringify({ keys, keychain }, null, 2))
    return unreachable
  }
  if (!keychain.reachable) io.err(`watchdesk keys: ${keychain.message}`)
  if (keys.length === 0) {
    io.out('No API keys stored. Add one with: watchdesk keys set NAME   (the key is read from stdin)')
    return unreachable
  }
  const rows = keys.map((k) => [
    k.active ? '*' : '',
    k.name,
    k.masked,
    k.kind ?? 'invalid',
    k.source,
    k.plan ? `${k.plan}${k.planInferred ? ' (inferred)' : ''}` : '—',
    k.perMinute === null ? '—' : String(k.perMinute),
    k.perSecond === null ? '—' : String(k.perSecond),
  ])
  const table = formatTable(['', 'name', 'key', 'kind', 'source', 'plan', 'per min', 'per s'], rows, [
    false,
    false,
    false,
    false,
    false,
    false,
    true,
    true,
  ])
  liveMarked(io, live, false).out(table)
  return unreachable
}
