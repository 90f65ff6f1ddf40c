import { Option } from 'commander'
import type { Command } from 'commander'
import type { ChannelConfig } from '../../shared/alerts/config'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import {
  channelAccount,
  channelEnvName,
  checkChannelSecret,
  describeChannel,
  readChannelSecret,
  sendAlert,
  storeChannelSecret,
  testAlert,
  testChannelNames,
} from '../alerts'
import { openConfigStore } from '../config'
import { createPushBus } from '../push'
import { createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { CliContext, CliDeps, CommonOptions } from './common'
import { configExit, configFor, dataDirOf, example, positiveInt, withCommon } from './common'
import { exitCodeFor, exitCodes, failWith, failure } from './exit'
import { readSecretFromTerminal } from './payments-common'
import type { ExitCode } from './exit'
import { formatTable } from './io'
import type { CliIo } from './io'

export function registerAlerts(program: Command, ctx: CliContext): void {
  const alerts = program.command('alerts').description('Alert channels (alerts.channels).')
  const test = withCommon(alerts.command('test'))
    .summary('send a test alert')
    .description(
      'Send a test alert to one channel of alerts.channels, or to every enabled one, and say what each answered. Exits 1 when a channel failed. The desktop channel needs the running app or console page: skipped here.',
    )
    .argument('[channel]', 'a channel name under alerts.channels')
    .action(async (channel: string | undefined, options: CommonOptions) =>
      ctx.exit(await runAlertsTest(channel, options, ctx.io, ctx.deps)),
    )
  example(test, 'watchdesk alerts test', 'watchdesk alerts test ops-slack --json')
  registerChannel(alerts, ctx)
}

interface SetOptions extends CommonOptions {
  type?: string
  host?: string
  port?: number
  from?: string
  to?: string
}

/** `alerts channel set/list/remove`: a channel's secret (its URL, or the SMTP password) goes into
 * the keychain as alert-channel:<name>, read from stdin or a hidden prompt, never an argument. */
function registerChannel(alerts: Command, ctx: CliContext): void {
  const channel = alerts
    .command('channel')
    .summary('alert channels: set a secret, list, remove')
    .description(
      'Alert channels (alerts.channels) and their secrets in the OS keychain (alert-channel:NAME): the URL of a webhook or Slack channel (a webhook may add a signing secret after a space), the SMTP password of an email channel. WATCHDESK_ALERT_CHANNEL_<NAME>, when set, wins.',
    )
  example(channel, 'printf %s "$SLACK_URL" | watchdesk alerts channel set ops --type slack')

  const set = withCommon(channel.command('set'), { json: false })
    .description(
      'Store the channel’s URL or SMTP password, read from stdin or a hidden prompt (never an argument: those show in ps). With --type, a channel that does not exist yet is added (the desktop channel stays).',
    )
    .argument('<name>', 'the channel name, e.g. ops')
    .addOption(
      // Choices for --help and completion; the check (and its sentence) stays in channelFor.
      new Option('--type <type>', 'add the channel with this type: webhook, slack or email')
        .choices(['webhook', 'slack', 'email'])
        .argParser((value: string) => value),
    )
    .option('--host <host>', 'email: the SMTP server')
    .option('--port <port>', 'email: the SMTP port (587)', positiveInt('port'))
    .option('--from <address>', 'email: the sender')
    .option('--to <addresses>', 'email: comma-separated recipients')
    .action(async (name: string, options: SetOptions) =>
      ctx.exit(await setChannel(name, options, ctx.io, ctx.deps)),
    )
  example(
    set,
    'printf %s "https://hooks.example.com/alerts" | watchdesk alerts channel set ops --type webhook',
    'watchdesk alerts channel set ops   (then paste the URL)',
  )

  const list = withCommon(channel.command('list'))
    .description('The channels, where each one sends (masked), and where its secret comes from.')
    .action(async (options: CommonOptions) => ctx.exit(await listChannels(options, ctx.io, ctx.deps)))
  example(list, 'watchdesk alerts channel list', 'watchdesk alerts channel list --json')

  const remove = withCommon(channel.command('remove'), { json: false })
    .description(
      'Remove a channel from alerts.channels and its secret from the keychain. Removing "desktop" is remembered (it is otherwise always there).',
    )
    .argument('<name>')
    .action(async (name: string, options: CommonOptions) =>
      ctx.exit(await removeChannel(name, options, ctx.io, ctx.deps)),
    )
  example(remove, 'watchdesk alerts channel remove ops')
}

const secretsOf = (deps: CliDeps, io: CliIo) =>
  deps.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env)

function openStore(options: CommonOptions, io: CliIo) {
  return openConfigStore({ dataDir: dataDirOf(options, io), overlayFile: options.config })
}

/** The channel as `--type` and the email options describe it, for a channel not configured yet. */
function newChannel(name: string, options: SetOptions): Result<Record<string, unknown>> {
  if (!options.type)
    return err(
      'not_found',
      `there is no alert channel "${name}": add it with --type webhook, slack or email (watchdesk alerts channel set ${name} --type webhook).`,
    )
  if (options.type === 'webhook' || options.type === 'slack') return ok({ type: options.type })
  if (options.type !== 'email')
    return err('bad_request', `--type is webhook, slack or email, not "${options.type}".`)
  if (!options.host || !options.from || !options.to)
    return err('bad_request', 'an email channel needs --host, --from and --to (and --port when not 587).')
  return ok({
    type: 'email',
    host: options.host,
    ...(options.port ? { port: options.port } : {}),
    from: options.from,
    to: options.to
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  })
}

async function setChannel(name: string, options: SetOptions, io: CliIo, deps: CliDeps): Promise<ExitCode> {
  const store = openStore(options, io)
  if (!store.ok) return failure(io, 'alerts', store.error.message, configExit(store.error))
  const existing = store.value.current().config.alerts.channels[name]
  if (existing && options.type && options.type !== existing.type)
    return failure(
      io,
      'alerts',
      `the channel "${name}" is a ${existing.type} channel, not ${options.type}: remove it first to change its type.`,
      exitCodes.usage,
    )
  const added = existing ? null : newChannel(name, options)
  if (added && !added.ok) return failure(io, 'alerts', added.error.message, exitCodes.usage)
  const type = (existing?.type ?? added?.value.type) as ChannelConfig['type']
  if (type === 'desktop')
    return failure(io, 'alerts', `"${name}" is a desktop channel: it has no secret to set.`, exitCodes.usage)
  const what = type === 'email' ? 'SMTP password' : `${type} URL`
  let value: string
  try {
    value = await (deps.readSecret ?? readSecretFromTerminal)(
      `${what} for channel "${name}" (input hidden): `,
    )
  } catch {
    io.err('Cancelled')
    return exitCodes.problem
  }
  const checked = checkChannelSecret(name, type, value)
  if (!checked.ok) return failure(io, 'alerts', checked.error.message, exitCodes.usage)
  if (added?.ok) {
    const saved = await store.value.update((draft) => {
      const alerts = (draft.alerts ??= {}) as Record<string, unknown>
      const channels = (alerts.channels ??= {}) as Record<string, unknown>
      channels[name] = added.value
    })
    if (!saved.ok) return failure(io, 'alerts', saved.error.message, exitCodeFor(saved.error))
  }
  const config = store.value.current().config.alerts.channels[name]!
  const secrets = secretsOf(deps, io)
  const stored = await storeChannelSecret(name, config, checked.value, secrets)
  if (!stored.ok) return failWith(io, 'alerts', stored.error)
  const info = describeChannel(name, config, await readChannelSecret(name, config, secrets, {}))
  io.out(
    `${added?.ok ? `added the ${type} channel "${name}" to alerts.channels; ` : ''}stored its ${what}${info.target && type !== 'email' ? ` (${info.target})` : ''} in the OS keychain as ${channelAccount(name)}. Test it with: watchdesk alerts test ${name}`,
  )
  if (io.env[channelEnvName(name)])
    io.err(`watchdesk alerts: ${channelEnvName(name)} is set and wins over the keychain while it is.`)
  return exitCodes.ok
}

async function listChannels(options: CommonOptions, io: CliIo, deps: CliDeps): Promise<ExitCode> {
  const loaded = configFor(options, io)
  if (!loaded.ok) return failure(io, 'alerts', loaded.error.message, loaded.error.exit)
  const secrets = secretsOf(deps, io)
  const channels = await Promise.all(
    Object.entries(loaded.value.config.alerts.channels).map(async ([name, c]) =>
      describeChannel(name, c, await readChannelSecret(name, c, secrets, io.env)),
    ),
  )
  if (options.json) io.out(JSON.stringify(channels, null, 2))
  else if (channels.length === 0)
    io.out(
      'No alert channel (the desktop channel was removed). Add one with: watchdesk alerts channel set NAME --type webhook',
    )
  else
    io.out(
      formatTable(
        ['name', 'type', 'enabled', 'target', 'secret', 'problem'],
        channels.map((c) => [
          c.name,
          c.type,
          c.enabled ? 'yes' : 'no',
          c.target ?? '—',
          c.secret,
          c.problem ?? '',
        ]),
      ),
    )
  return channels.some((c) => c.problem) ? exitCodes.problem : exitCodes.ok
}

async function removeChannel(
  name: string,
  options: CommonOptions,
  io: CliIo,
  deps: CliDeps,
): Promise<ExitCode> {
  const store = openStore(options, io)
  if (!store.ok) return failure(io, 'alerts', store.error.message, configExit(store.error))
  if (!store.value.current().config.alerts.channels[name])
    return failure(
      io,
      'alerts',
      `there is no alert channel "${name}" ("watchdesk alerts channel list" shows them).`,
      exitCodes.usage,
    )
  const saved = await store.value.update((draft) => {
    const alerts = (draft.alerts ??= {}) as Record<string, unknown>
    const channels = (alerts.channels ??= {}) as Record<string, unknown>
    // The desktop channel comes by default: removing it is written down as null.
    if (name === 'desktop') channels[name] = null
    else delete channels[name]
  })
  if (!saved.ok) return failure(io, 'alerts', saved.error.message, exitCodeFor(saved.error))
  const removed = await secretsOf(deps, io).delete(channelAccount(name))
  io.out(
    `removed the channel "${name}" from alerts.channels${removed.ok && removed.value ? ` and its secret (${channelAccount(name)}) from the keychain` : ''}`,
  )
  return exitCodes.ok
}

/** `watchdesk alerts test [CHANNEL]`: the same channels and secrets as the console, without it. */
async function runAlertsTest(
  channel: string | undefined,
  options: CommonOptions,
  io: CliIo,
  deps: CliDeps,
): Promise<ExitCode> {
  const loaded = configFor(options, io)
  if (!loaded.ok) return failure(io, 'alerts', loaded.error.message, loaded.error.exit)
  const channels = loaded.value.config.alerts.channels
  if (channel !== undefined && !channels[channel]) {
    return failure(
      io,
      'alerts',
      `there is no alert channel "${channel}"; add it with: watchdesk alerts channel set ${channel} --type webhook (or slack, email).`,
      exitCodes.usage,
    )
  }
  const store = deps.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env)
  const alert = testAlert(Date.now())
  const names = testChannelNames(channels, channel)
  const results: { channel: string; result: 'sent' | 'failed' | 'skipped'; detail: string }[] = []
  for (const name of names) {
    const config = channels[name]!
    if (config.type === 'desktop') {
      results.push({
        channel: name,
        result: 'skipped',
        detail: 'shown by the running app or console page only',
      })
      continue
    }
    const secret = await readChannelSecret(name, config, store, io.env)
    const sent =
      secret.problem && config.type !== 'email'
        ? { ok: false as const, error: { message: secret.problem } }
        : await sendAlert(name, config, alert, { push: createPushBus(), secret })
    results.push({
      channel: name,
      result: sent.ok ? 'sent' : 'failed',
      detail: sent.ok ? sent.value : sent.error.message,
    })
  }
  if (options.json) for (const r of results) io.out(JSON.stringify(r))
  else if (results.length === 0)
    io.out('No enabled alert channel: add one under alerts.channels in the config.')
  else
    io.out(
      formatTable(
        ['channel', 'result', 'detail'],
        results.map((r) => [r.channel, r.result, r.detail]),
      ),
    )
  return results.some((r) => r.result === 'failed') ? exitCodes.problem : exitCodes.ok
}
