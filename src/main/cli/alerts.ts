import type { Alert } from '../../shared/contract/alerts'
import { readChannelSecret, sendAlert } from '../alerts/channels'
import { loadConfig, resolveDataDir } from '../config'
import { createPushBus } from '../push'
import { createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import { parseCommandArgs } from './args'
import { formatTable } from './io'
import type { CliIo } from './io'

export const alertsUsage = `watchdesk alerts test [CHANNEL] [--config FILE] [--data-dir DIR] [--json]
  Sends a test alert to one channel of alerts.channels, or to every enabled one, and says what each answered.
  Exits 1 when a channel failed. (The desktop channel needs the running app or console: skipped here.)`

/** `watchdesk alerts test [CHANNEL]`: the same channels and secrets as the console, without it. */
export async function alertsCommand(argv: string[], io: CliIo, secrets?: SecretStore): Promise<number> {
  const args = parseCommandArgs(argv, {})
  if (!args.ok) return usage(io, args.error.message)
  const [sub, channel, ...extra] = args.value.positionals
  if (sub !== 'test' || extra.length > 0) return usage(io, 'the only subcommand is "alerts test [CHANNEL]".')
  const dataDir = resolveDataDir(args.value.values['data-dir'] as string | undefined, io.env)
  const loaded = loadConfig(dataDir, args.value.values.config as string | undefined)
  if (!loaded.ok) {
    io.err(`watchdesk alerts: ${loaded.error.message}`)
    return 3
  }
  const channels = loaded.value.config.alerts.channels
  if (channel !== undefined && !channels[channel]) {
    io.err(
      `watchdesk alerts: there is no alert channel "${channel}"; add it under alerts.channels in the config.`,
    )
    return 2
  }
  const store = secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env)
  const alert: Alert = {
    t: Date.now(),
    rule: 'test',
    subject: 'test',
    serviceId: null,
    kind: 'test',
    severity: 'info',
    title: 'watchdesk test alert',
    body: 'If you read this, the channel works.',
    incidentId: null,
    durationMs: null,
  }
  const names = channel !== undefined ? [channel] : Object.keys(channels).filter((n) => channels[n]!.enabled)
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
  if (args.value.values.json) for (const r of results) io.out(JSON.stringify(r))
  else if (results.length === 0)
    io.out('No enabled alert channel: add one under alerts.channels in the config.')
  else
    io.out(
      formatTable(
        ['channel', 'result', 'detail'],
        results.map((r) => [r.channel, r.result, r.detail]),
      ),
    )
  return results.some((r) => r.result === 'failed') ? 1 : 0
}

function usage(io: CliIo, message: string): number {
  io.err(`watchdesk alerts: ${message}\n\n${alertsUsage}`)
  return 2
}
