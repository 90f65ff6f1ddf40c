import { eventTypeInfo } from '../../shared/events'
import { loadConfig, resolveDataDir } from '../config'
import { accounts, createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import { sendTestEvent } from '../webhooks'
import { parseCommandArgs } from './args'
import type { CliIo } from './io'

export const sendTestEventUsage = `watchdesk send-test-event <type> [--endpoint ID] [--url URL] [--data-dir DIR] [--config FILE] [--json]
  Signs a sample envelope of <type> with a configured webhook secret (that endpoint's, or the first
  one) and posts it to the listener (default: the listener.* config, http://127.0.0.1:7421/webhooks).`

export async function sendTestEventCommand(
  argv: string[],
  io: CliIo,
  secretStore?: SecretStore,
): Promise<number> {
  const args = parseCommandArgs(argv, { endpoint: { type: 'string' }, url: { type: 'string' } })
  if (!args.ok) return fail(io, args.error.message)
  const [type, ...extra] = args.value.positionals
  if (!type || extra.length > 0)
    return fail(io, `give exactly one event type, e.g. funding.completed.\n\n${sendTestEventUsage}`)
  const loaded = loadConfig(
    resolveDataDir(args.value.values['data-dir'] as string | undefined, io.env),
    args.value.values.config as string | undefined,
  )
  if (!loaded.ok) return fail(io, loaded.error.message)
  const secrets = secretStore ?? withEnvironmentSecrets(createKeytarStore(), io.env)
  const wanted = args.value.values.endpoint as string | undefined
  const listed = await secrets.list()
  if (!listed.ok) return fail(io, listed.error.message)
  const entry = listed.value.find(
    (e) => accounts.isWebhookSecret(e.account) && (!wanted || accounts.nameOf(e.account) === wanted),
  )
  if (!entry) {
    return fail(
      io,
      wanted
        ? `no webhook secret is stored for endpoint ${wanted}; see "watchdesk webhooks list", or pick another --endpoint.`
        : 'no webhook secret is configured to sign with: create a webhook endpoint, or set WATCHDESK_WEBHOOK_SECRETS.',
    )
  }
  const endpoint = accounts.nameOf(entry.account)
  const { host, port, tls } = loaded.value.config.listener
  const listenerHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  const url =
    (args.value.values.url as string | undefined) ??
    `${tls ? 'https' : 'http'}://${listenerHost}:${port}/webhooks${wanted ? `/${encodeURIComponent(endpoint)}` : ''}`
  const sent = await sendTestEvent({ url, secret: entry.secret, type })
  if (!sent.ok) return fail(io, sent.error.message)
  const { id, status, answer } = sent.value
  if (args.value.values.json)
    io.out(JSON.stringify({ id, type, endpoint, url: sent.value.url, status, answer }))
  else {
    io.out(
      `sent ${type} ${id} signed with endpoint ${endpoint}'s secret to ${sent.value.url}: HTTP ${status} ${answer}`,
    )
    if (!eventTypeInfo(type))
      io.out(`note: ${type} is not an event type of the spec; it is stored and shown as unknown.`)
  }
  if (status !== 200) {
    io.err(`watchdesk send-test-event: the listener answered ${status}, not 200: the event was not stored.`)
    return 1
  }
  return 0
}

function fail(io: CliIo, message: string): number {
  io.err(`watchdesk send-test-event: ${message}`)
  return 1
}
