import { knownEventTypes } from '../../shared/payments'
import { parseCommandArgs } from './args'
import type { CliIo } from './io'
import { confirmOnTerminal, paymentsFor } from './payments-common'
import { formatTable } from './io'
import type { PaymentsCliDeps } from './payments-common'

export const webhooksUsage = `watchdesk webhooks list [--json] | webhooks create --url URL --events TYPE,TYPE [--description TEXT] [--yes] | webhooks delete ID [--yes]
  Webhook endpoints of the selected business. create checks the url is https:// and the description
  at most 200 characters before sending, and writes the returned secret straight into the keychain
  (webhook-secret:<id>); it is never printed. delete removes that secret too. With a live key, writes
  ask for confirmation on the terminal, or need --yes. List/delete paths: config webhookEndpoints.`

export async function webhooksCommand(
  argv: string[],
  io: CliIo,
  deps: PaymentsCliDeps = {},
): Promise<number> {
  const args = parseCommandArgs(argv, {
    url: { type: 'string' },
    events: { type: 'string' },
    description: { type: 'string' },
    yes: { type: 'boolean', default: false },
  })
  if (!args.ok) return fail(io, args.error.message)
  const { values, positionals } = args.value
  const [action, id] = positionals
  const service = paymentsFor(args.value, io, deps)
  if (!service.ok) return fail(io, service.error.message)
  const payments = service.value

  /** --yes, or a yes on the terminal, when the active key is live. */
  const confirmLive = async (what: string): Promise<boolean> => {
    if (values.yes === true) return true
    const status = await payments.status()
    if (!status.ok || !status.value.live) return false
    const answer = await (deps.confirm ?? confirmOnTerminal)(
      `The active key ${status.value.activeKey?.masked} is LIVE. ${what}?`,
    )
    return answer === true
  }

  switch (action) {
    case 'list': {
      const listed = await payments.listEndpoints()
      if (!listed.ok) return fail(io, listed.error.message)
      if (values.json) {
        io.out(JSON.stringify(listed.value.endpoints, null, 2))
        return 0
      }
      if (listed.value.endpoints.length === 0) {
        io.out(
          'No webhook endpoints. Create one with: watchdesk webhooks create --url https://… --events funding.completed',
        )
        return 0
      }
      const rows = listed.value.endpoints.map((e) => [
        e.id,
        e.status ?? '—',
        e.url ?? '—',
        e.events.join(','),
        e.secretInKeychain ? 'in keychain' : 'missing',
        e.createdAt ?? '—',
        e.description ?? '',
      ])
      io.out(formatTable(['id', 'status', 'url', 'events', 'secret', 'created', 'description'], rows))
      return 0
    }
    case 'create': {
      if (typeof values.url !== 'string' || typeof values.events !== 'string') {
        return fail(
          io,
          `create needs --url https://… and --events TYPE,TYPE (types: ${knownEventTypes.join(', ')}).`,
        )
      }
      const events = values.events
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean)
      const input = { url: values.url, events, description: values.description as string | undefined }
      const created = await payments.createEndpoint(
        input,
        await confirmLive(`Create a webhook endpoint for ${values.url}`),
      )
      if (!created.ok) return fail(io, created.error.message)
      const c = created.value
      const { secretShownOnce: _never, ...printable } = c
      if (values.json) io.out(JSON.stringify(printable, null, 2))
      else {
        io.out(
          `created ${c.endpoint.id} (${c.endpoint.status ?? 'status not given'}) → ${c.endpoint.url} for ${c.endpoint.events.join(', ')}`,
        )
        io.out(
          c.secretStored
            ? `its secret is in the OS keychain as ${c.secretAccount}; the listener verifies this endpoint with it`
            : `secret NOT stored: ${c.secretProblem}`,
        )
      }
      if (c.secretStored && c.secretProblem) io.err(`watchdesk webhooks: ${c.secretProblem}`)
      return c.secretStored ? 0 : 1
    }
    case 'delete': {
      if (!id) return fail(io, 'delete needs the endpoint ID (wh_…); "watchdesk webhooks list" shows them.')
      const deleted = await payments.deleteEndpoint(
        id,
        await confirmLive(`Delete the webhook endpoint ${id}`),
      )
      if (!deleted.ok) return fail(io, deleted.error.message)
      io.out(
        `deleted ${id}${deleted.value.secretRemoved ? ' and removed its secret from the keychain' : ' (no secret was stored for it)'}`,
      )
      return 0
    }
    default:
      return fail(io, `unknown action "${action ?? ''}".\n\n${webhooksUsage}`, 2)
  }
}

function fail(io: CliIo, message: string, code = 1): number {
  io.err(`watchdesk webhooks: ${message}`)
  return code
}
