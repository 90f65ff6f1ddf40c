import type { Command } from 'commander'
import { knownEventTypes } from '../../shared/payments'
import type { PaymentsService } from '../payments'
import { deleteEndpoints, listStaleEndpoints, reachByProbe } from '../api/stale-endpoints'
import type { CliContext, CliDeps } from './common'
import { configExit, configFor, example, withCommon } from './common'
import { exitCodes, failWith, failure } from './exit'
import type { ExitCode } from './exit'
import { formatTable } from './io'
import type { CliIo } from './io'
import { confirmOnTerminal, liveMarked, paymentsFor, withBusiness } from './payments-common'
import type { PaymentsOptions } from './payments-common'

interface WriteOptions extends PaymentsOptions {
  yes?: boolean
}
interface CreateOptions extends WriteOptions {
  url: string
  events: string
  description?: string
}

export function registerWebhooks(program: Command, ctx: CliContext): void {
  const webhooks = program
    .command('webhooks')
    .description(
      'Webhook endpoints of the business. create writes the returned secret straight into the keychain (webhook-secret:<id>), never printed; delete removes it too. With a live key, writes ask first (or need --yes). List/delete paths: config webhookEndpoints.',
    )
  example(webhooks, 'watchdesk webhooks list --business biz_8f2c')

  const list = withBusiness(withCommon(webhooks.command('list')))
    .description("List the webhook endpoints and whether each one's secret is in the keychain.")
    .action(async (options: PaymentsOptions) => ctx.exit(await run(options, ctx, 'list', listEndpoints)))
  example(list, 'watchdesk webhooks list', 'watchdesk webhooks list --json')

  const create = withBusiness(withCommon(webhooks.command('create')))
    .description('Register an https:// endpoint for some event types; its secret goes into the keychain.')
    .requiredOption('--url <url>', 'the public https:// URL the service delivers to')
    .requiredOption(
      '--events <types>',
      `comma-separated event types (${knownEventTypes.slice(0, 3).join(', ')}, …)`,
    )
    .option('--description <text>', 'at most 200 characters')
    .option('--yes', 'do not ask, even with a live key')
    .action(async (options: CreateOptions) =>
      ctx.exit(await run(options, ctx, 'create', (p, io) => createEndpoint(p, io, options, ctx.deps))),
    )
  example(
    create,
    'watchdesk webhooks create --url https://hooks.example.com/watchdesk --events funding.completed,payout.failed',
  )

  const remove = withBusiness(withCommon(webhooks.command('delete')))
    .description('Delete an endpoint (wh_…) and its secret from the keychain.')
    .argument('<id>', 'the endpoint id, as "webhooks list" shows it')
    .option('--yes', 'do not ask, even with a live key')
    .action(async (id: string, options: WriteOptions) =>
      ctx.exit(await run(options, ctx, 'delete', (p, io) => deleteEndpoint(p, io, id, options, ctx.deps))),
    )
  example(remove, 'watchdesk webhooks delete wh_123 --yes')

  const cleanup = withBusiness(withCommon(webhooks.command('cleanup')))
    .description(
      'List the endpoints this console no longer needs: a second endpoint for listener.publicUrl, one that "Connect this console" registered for an earlier public URL, one whose URL nothing answers at. With ids (or --all) delete those, with their secrets.',
    )
    .argument('[ids...]', 'endpoint ids from the list to delete')
    .option('--all', 'delete every endpoint the list proposes')
    .option('--yes', 'do not ask, even with a live key')
    .action(async (ids: string[], options: WriteOptions & { all?: boolean }) =>
      ctx.exit(
        await run(options, ctx, 'cleanup', (p, io, json) => cleanupEndpoints(p, io, json, ids, options, ctx)),
      ),
    )
  example(
    cleanup,
    'watchdesk webhooks cleanup',
    'watchdesk webhooks cleanup --all --yes',
    'watchdesk webhooks cleanup wh_1 wh_2',
  )
}

async function cleanupEndpoints(
  payments: PaymentsService,
  io: CliIo,
  json: boolean,
  ids: string[],
  options: WriteOptions & { all?: boolean },
  ctx: CliContext,
): Promise<ExitCode> {
  const loaded = configFor(options, io)
  if (!loaded.ok) return failure(io, 'webhooks', loaded.error.message, loaded.error.exit)
  const publicUrl = loaded.value.config.listener.publicUrl ?? null
  const found = await listStaleEndpoints(payments, publicUrl, reachByProbe(io.env))
  if (!found.ok) return failWith(io, 'webhooks', found.error)
  const { stale, total } = found.value
  const proposed = new Set(stale.map((s) => s.endpoint.id))
  const chosen = options.all === true ? [...proposed] : ids
  const unknown = chosen.filter((id) => !proposed.has(id))
  if (unknown.length > 0)
    return failure(
      io,
      'webhooks',
      `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not among the endpoints to clean up; "watchdesk webhooks delete ID" deletes any endpoint.`,
      exitCodes.usage,
    )
  if (chosen.length === 0) {
    if (json) io.out(JSON.stringify({ stale, total }, null, 2))
    else if (stale.length === 0)
      io.out(
        `Nothing to clean up: none of the ${total} endpoint(s) is a duplicate, an earlier URL of this console or unreachable.`,
      )
    else {
      io.out(
        formatTable(
          ['id', 'reason', 'url', 'why'],
          stale.map((s) => [s.endpoint.id, s.reason, s.endpoint.url ?? '—', s.message]),
        ),
      )
      io.out('Delete them with: watchdesk webhooks cleanup ID… (or --all)')
    }
    return exitCodes.ok
  }
  const asked = await confirmLive(payments, options, ctx.deps, `Delete ${chosen.length} webhook endpoint(s)`)
  if (!asked.go) return cancelled(io, asked.message)
  const done = await deleteEndpoints(payments, chosen, asked.confirmed)
  if (!done.ok) return failWith(io, 'webhooks', done.error)
  const result = done.value
  if (json) io.out(JSON.stringify(result, null, 2))
  else {
    for (const d of result.deleted)
      io.out(`deleted ${d.id}${d.secretRemoved ? ' and removed its secret from the keychain' : ''}`)
    for (const f of result.failed) io.err(`watchdesk webhooks: ${f.id} not deleted: ${f.message}`)
  }
  return result.failed.length > 0 ? exitCodes.problem : exitCodes.ok
}

type Action = (payments: PaymentsService, io: CliIo, json: boolean) => Promise<ExitCode>

async function run(
  options: PaymentsOptions,
  ctx: CliContext,
  _name: string,
  action: Action,
): Promise<ExitCode> {
  const service = paymentsFor(options, ctx.io, ctx.deps)
  if (!service.ok) return failure(ctx.io, 'webhooks', service.error.message, configExit(service.error))
  const status = await service.value.status()
  const io = liveMarked(ctx.io, status.ok && status.value.live, options.json)
  return action(service.value, io, options.json === true)
}

async function listEndpoints(payments: PaymentsService, io: CliIo, json: boolean): Promise<ExitCode> {
  const listed = await payments.listEndpoints()
  if (!listed.ok) return failWith(io, 'webhooks', listed.error)
  if (json) {
    io.out(JSON.stringify(listed.value.endpoints, null, 2))
    return exitCodes.ok
  }
  if (listed.value.endpoints.length === 0) {
    io.out(
      'No webhook endpoints. Create one with: watchdesk webhooks create --url https://… --events funding.completed',
    )
    return exitCodes.ok
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
  return exitCodes.ok
}

/** --yes, or a yes to the question, when the active key is live; "n" cancels (exit 1). */
async function confirmLive(
  payments: PaymentsService,
  options: WriteOptions,
  deps: CliDeps,
  what: string,
): Promise<{ go: boolean; confirmed: boolean; message?: string }> {
  if (options.yes === true) return { go: true, confirmed: true }
  const status = await payments.status()
  if (!status.ok || !status.value.live) return { go: true, confirmed: false }
  const answer = await (deps.confirm ?? confirmOnTerminal)(
    `The active key ${status.value.activeKey?.masked} is LIVE. ${what}?`,
  )
  if (answer === true) return { go: true, confirmed: true }
  if (answer === false) return { go: false, confirmed: false, message: 'Cancelled' }
  return {
    go: false,
    confirmed: false,
    message: `The active key is LIVE and nobody answered the question: answer y on a terminal, or pass --yes.`,
  }
}

async function createEndpoint(
  payments: PaymentsService,
  io: CliIo,
  options: CreateOptions,
  deps: CliDeps,
): Promise<ExitCode> {
  const events = options.events
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
  const asked = await confirmLive(payments, options, deps, `Create a webhook endpoint for ${options.url}`)
  if (!asked.go) return cancelled(io, asked.message)
  const created = await payments.createEndpoint(
    { url: options.url, events, description: options.description },
    asked.confirmed,
  )
  if (!created.ok) return failWith(io, 'webhooks', created.error)
  const c = created.value
  const { secretShownOnce: _never, ...printable } = c
  if (options.json) io.out(JSON.stringify(printable, null, 2))
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
  return c.secretStored ? exitCodes.ok : exitCodes.cannotRun
}

async function deleteEndpoint(
  payments: PaymentsService,
  io: CliIo,
  id: string,
  options: WriteOptions,
  deps: CliDeps,
): Promise<ExitCode> {
  const asked = await confirmLive(payments, options, deps, `Delete the webhook endpoint ${id}`)
  if (!asked.go) return cancelled(io, asked.message)
  const deleted = await payments.deleteEndpoint(id, asked.confirmed)
  if (!deleted.ok) return failWith(io, 'webhooks', deleted.error)
  io.out(
    `deleted ${id}${deleted.value.secretRemoved ? ' and removed its secret from the keychain' : ' (no secret was stored for it)'}`,
  )
  return exitCodes.ok
}

function cancelled(io: CliIo, message = 'Cancelled'): ExitCode {
  io.err(message === 'Cancelled' ? 'Cancelled' : `watchdesk webhooks: ${message}`)
  return exitCodes.problem
}
