import type { Command } from 'commander'
import { testAlert, testChannelNames } from '../alerts'
import { readChannelSecret, sendAlert } from '../alerts/channels'
import { createPushBus } from '../push'
import { createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { CliContext, CliDeps, CommonOptions } from './common'
import { configFor, example, withCommon } from './common'
import { exitCodes, failure } from './exit'
import type { ExitCode } from './exit'
import { formatTable } from './io'
import type { CliIo } from './io'

export function registerAlerts(program: Command, ctx: CliContext): void {
  const alerts = program
    .command('alerts')
    .summary('alert channels')
    .description('Alert channels (alerts.channels).')
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
      `there is no alert channel "${channel}"; add it under alerts.channels in the config.`,
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
