import type { Command } from 'commander'
import { eventTypeInfo, eventTypes } from '../../shared/events'
import { didYouMean } from '../../shared/suggest'
import { readRuntimeInfo } from '../config'
import { accounts, createKeytarStore, withEnvironmentSecrets } from '../secrets'
import { sendTestEvent } from '../webhooks'
import type { CliContext, CliDeps, CommonOptions } from './common'
import { configFor, dataDirOf, example, withCommon } from './common'
import { exitCodes, failWith, failure } from './exit'
import type { ExitCode } from './exit'
import type { CliIo } from './io'

interface SendOptions extends CommonOptions {
  endpoint?: string
  url?: string
  force?: boolean
}

export function registerSendTestEvent(program: Command, ctx: CliContext): void {
  const send = withCommon(program.command('send-test-event'))
    .description(
      "Sign a sample envelope of TYPE with a configured webhook secret (that endpoint's, or the first one) and post it to the listener: the running watchdesk's actual address (runtime.json in the data dir), else the listener.* config.",
    )
    .argument('<type>', 'an event type, e.g. funding.completed')
    .option('--endpoint <id>', "sign with this endpoint's secret and post to /webhooks/<id>")
    .option('--url <url>', 'post here instead (e.g. the public URL of a tunnel)')
    .option('--force', 'send a type that is not in the event catalogue (it is stored as unknown)')
    .action(async (type: string, options: SendOptions) =>
      ctx.exit(await runSend(type, options, ctx.io, ctx.deps)),
    )
  send.addHelpText('after', `\nEvent types:\n  ${eventTypes.map((t) => t.type).join('\n  ')}`)
  example(
    send,
    'watchdesk send-test-event funding.completed',
    'watchdesk send-test-event payout.failed --json',
  )
}

async function runSend(type: string, options: SendOptions, io: CliIo, deps: CliDeps): Promise<ExitCode> {
  // A typo would be stored and forwarded as an unknown event: refused unless asked for.
  if (!eventTypeInfo(type) && !options.force)
    return failure(
      io,
      'send-test-event',
      `"${type}" is not a known event type.${didYouMean(
        type,
        eventTypes.map((t) => t.type),
      )} (--force sends it anyway; watchdesk send-test-event --help lists the types.)`,
      exitCodes.usage,
    )
  const loaded = configFor(options, io)
  if (!loaded.ok) return failure(io, 'send-test-event', loaded.error.message, loaded.error.exit)
  const secrets = deps.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env)
  const wanted = options.endpoint
  const listed = await secrets.list()
  if (!listed.ok) return failWith(io, 'send-test-event', listed.error)
  const entry = listed.value.find(
    (e) => accounts.isWebhookSecret(e.account) && (!wanted || accounts.nameOf(e.account) === wanted),
  )
  if (!entry) {
    return failure(
      io,
      'send-test-event',
      wanted
        ? `no webhook secret is stored for endpoint ${wanted}; see "watchdesk webhooks list", or pick another --endpoint.`
        : 'no webhook secret is configured to sign with: create a webhook endpoint, or set WATCHDESK_WEBHOOK_SECRETS.',
      exitCodes.cannotRun,
    )
  }
  const endpoint = accounts.nameOf(entry.account)
  const url =
    options.url ??
    `${listenerBase(options, io, loaded.value.config.listener)}/webhooks${wanted ? `/${encodeURIComponent(endpoint)}` : ''}`
  const sent = await sendTestEvent({ url, secret: entry.secret, type })
  if (!sent.ok) return failWith(io, 'send-test-event', sent.error)
  const { id, status, answer } = sent.value
  if (options.json) io.out(JSON.stringify({ id, type, endpoint, url: sent.value.url, status, answer }))
  else {
    io.out(
      `sent ${type} ${id} signed with endpoint ${endpoint}'s secret to ${sent.value.url}: HTTP ${status} ${answer}`,
    )
    if (!eventTypeInfo(type))
      io.out(`note: ${type} is not a known event type; it is stored and shown as unknown.`)
  }
  if (status !== 200) {
    io.err(`watchdesk send-test-event: the listener answered ${status}, not 200: the event was not stored.`)
    return exitCodes.problem
  }
  return exitCodes.ok
}

/** The running back end's listener (it may run on another port than configured: --listener-port,
 * port 0), else the configured one. */
function listenerBase(
  options: SendOptions,
  io: CliIo,
  listener: { host: string; port: number; tls?: unknown },
): string {
  const running = readRuntimeInfo(dataDirOf(options, io))
  if (running?.listenerUrl) return running.listenerUrl
  const host = listener.host === '0.0.0.0' || listener.host === '::' ? '127.0.0.1' : listener.host
  return `${listener.tls ? 'https' : 'http'}://${host}:${listener.port}`
}
