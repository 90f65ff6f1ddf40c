import type { Command } from 'commander'
import { openConfigStore, parseValue } from '../config'
import type { ConfigStore } from '../config'
import type { CliContext, CommonOptions } from './common'
import { configExit, dataDirOf, example, withCommon } from './common'
import { exitCodes, failure } from './exit'
import type { ExitCode } from './exit'
import type { CliIo } from './io'
import { formatTable } from './io'
import { configKeys, configKeysMarkdown } from '../../shared/config-keys'
import { maskConfigValue } from '../../shared/config-secrets'

interface GetOptions extends CommonOptions {
  effective?: boolean
}

export function registerConfig(program: Command, ctx: CliContext): void {
  const config = program
    .command('config')
    .description(
      'Read and change config.json in the data dir through the same writer and schema as the console (a running console applies the change at once). Keys are dotted: listener.port, chains.1.slug.',
    )
  example(config, 'watchdesk config set rpcBaseUrl https://rpc.example.com', 'watchdesk config get listener')

  withCommon(config.command('keys'))
    .description(
      'Every key config.json may hold, with its type and default, read off the schema (docs/configuration.md has the same table).',
    )
    .option('--markdown', 'as the Markdown table of docs/configuration.md')
    .action((options: CommonOptions & { markdown?: boolean }) => {
      const keys = configKeys()
      if (options.json) for (const k of keys) ctx.io.out(JSON.stringify(k))
      else if (options.markdown) ctx.io.out(configKeysMarkdown(keys))
      else
        ctx.io.out(
          formatTable(
            ['key', 'type', 'default'],
            keys.map((k) => [k.key, k.type, k.default]),
          ),
        )
      ctx.exit(exitCodes.ok)
    })

  const get = withCommon(config.command('get'))
    .description(
      'Print a saved value (JSON), or the whole saved file without KEY. Credentials (header values, URL user and password, key/token/secret parameters) are shown masked.',
    )
    .argument('[key]', 'a dotted key')
    .option('--effective', 'the value in use: defaults and --config applied')
    .action(async (key: string | undefined, options: GetOptions) => ctx.exit(getValue(key, options, ctx.io)))
  example(get, 'watchdesk config get pollIntervalMs --effective', 'watchdesk config get')

  const set = withCommon(config.command('set'), { json: false })
    .description(
      'Set KEY to VALUE; VALUE is read as JSON when it is JSON (7500, true, {"a":1}, "7500"), as text otherwise.',
    )
    .argument('<key>', 'a dotted key')
    .argument('<value>')
    .action(async (key: string, value: string, options: CommonOptions) =>
      ctx.exit(await change(options, ctx.io, (store) => store.set(key, parseValue(value)), key)),
    )
  example(set, 'watchdesk config set listener.port 7500', 'watchdesk config set chains.56.enabled false')

  const unset = withCommon(config.command('unset'), { json: false })
    .description('Remove KEY from config.json (its default applies again).')
    .argument('<key>', 'a dotted key')
    .action(async (key: string, options: CommonOptions) =>
      ctx.exit(
        await change(
          options,
          ctx.io,
          async (store) => {
            const done = await store.unset(key)
            if (done.ok && !done.value.removed)
              ctx.io.err(`watchdesk config: ${key} was not set; nothing changed.`)
            return done
          },
          key,
        ),
      ),
    )
  example(unset, 'watchdesk config unset listener.port')
}

function open(options: CommonOptions, io: CliIo) {
  return openConfigStore({ dataDir: dataDirOf(options, io), overlayFile: options.config })
}

function getValue(key: string | undefined, options: GetOptions, io: CliIo): ExitCode {
  const store = open(options, io)
  if (!store.ok) return failure(io, 'config', store.error.message, configExit(store.error))
  const got = store.value.get(key ?? '')
  if (!got.ok) return failure(io, 'config', got.error.message, exitCodes.usage)
  // Credentials are write-only here as in Settings: `config set` replaces one, `get` masks it.
  const value = maskConfigValue(
    options.effective ? got.value.effective : got.value.saved,
    key ? key.split('.') : [],
  )
  if (value === undefined) {
    return failure(
      io,
      'config',
      `${key} is not set${options.effective ? '' : ' in config.json (--effective shows the value in use)'}.`,
      exitCodes.problem,
    )
  }
  io.out(typeof value === 'string' && !options.json ? value : JSON.stringify(value, null, 2))
  return exitCodes.ok
}

async function change(
  options: CommonOptions,
  io: CliIo,
  apply: (
    store: ConfigStore,
  ) => Promise<{ ok: true } | { ok: false; error: { code: string; message: string } }>,
  key: string,
): Promise<ExitCode> {
  const store = open(options, io)
  if (!store.ok) return failure(io, 'config', store.error.message, configExit(store.error))
  const done = await apply(store.value)
  if (!done.ok) {
    const code =
      done.error.code === 'unavailable'
        ? exitCodes.cannotRun
        : done.error.code === 'conflict'
          ? exitCodes.problem
          : exitCodes.usage
    return failure(io, 'config', done.error.message, code)
  }
  const restart = store.value.status().restartRequired
  io.out(`saved ${key} in ${store.value.current().file}`)
  if (restart.length > 0 || key.startsWith('listener'))
    io.out(
      'listener settings take effect when watchdesk (serve or the app) restarts; everything else applies at once.',
    )
  return exitCodes.ok
}
