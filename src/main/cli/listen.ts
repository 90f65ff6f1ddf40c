import type { Command } from 'commander'
import type { CliContext } from './common'
import { example, parsesOwnArguments, withCommon } from './common'
import { join } from 'node:path'
import { openConfigStore, removeRuntimeInfo, resolveDataDir } from '../config'
import { createContext, ensureDir, publishRuntimeInfo } from '../backend'
import { acquireInstanceLock, databaseFileName, openDatabase } from '../db'
import { parsePatterns } from '../forward'
import type { AttemptReport } from '../forward'
import { createKeytarStore, observeSecrets, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import { startListening } from '../services'
import type { EventSummary } from '../../shared/contract/events'
import { intFlag, parseCommandArgs } from './args'
import { attemptLine } from './attempt-line'
import { inert } from '../../shared/inert'
import { cliLogger } from './io'
import type { CliIo } from './io'
import { maskConfigUrl } from '../../shared/config-secrets'
import { DisposableStore } from '../../shared/disposable'

/** Declared for help and usage errors; `listenCommand` parses its own arguments (as serve does). */
export function registerListen(program: Command, ctx: CliContext): void {
  const command = withCommon(program.command('listen'))
    .description(
      'The webhook listener, the store and the forwarder without the console: one line per received event (←) and per forward attempt (→). Ctrl-C waits for the attempts under way; queued forwards wait for the next run.',
    )
    .option('--forward-to <url...>', 'forward every verified event to this URL (repeatable)')
    .option(
      '--events <types>',
      'only these types to the --forward-to targets (comma-separated, funding.* allowed)',
    )
    .option(
      '--forward-secret-env <var>',
      're-sign for the targets with the secret in this environment variable',
    )
    .option('--listener-port <port>', 'webhook listener port, over listener.port')
    .action(parsesOwnArguments(ctx, 'listen', listenCommand))
  example(
    command,
    'watchdesk listen --forward-to http://localhost:3000/hook',
    'watchdesk listen --forward-to http://localhost:3000/hook --events funding.*,payout.* --json',
  )
}

export interface ListenOptions {
  forwardTo: string[]
  /** Types (`funding.*` patterns) forwarded to the --forward-to targets; all when absent. */
  events?: string[]
  /** The --forward-to targets re-sign with this secret (read from the environment, never stored). */
  forwardSecret?: string
  listenerPort?: number
  dataDir: string
  configFile?: string
  json: boolean
  secrets?: SecretStore
  /** Resolves when the command should stop (SIGINT / SIGTERM by default). */
  stopSignal?: Promise<void>
}

/** `watchdesk listen` with already-parsed options; the exit code. */
export async function listen(options: ListenOptions, io: CliIo): Promise<number> {
  const log = cliLogger(io)
  const config = openConfigStore({ dataDir: options.dataDir, overlayFile: options.configFile, log })
  if (!config.ok) return fail(io, config.error.message, 3)
  const dir = ensureDir(options.dataDir)
  if (!dir.ok) return fail(io, dir.error.message, 3)
  const lock = acquireInstanceLock(options.dataDir, process.pid, 'listen')
  if (!lock.ok) return fail(io, lock.error.message, 3)
  const db = openDatabase(join(options.dataDir, databaseFileName))
  if (!db.ok) {
    lock.value.release()
    return fail(io, db.error.message, 3)
  }
  const secrets = observeSecrets(options.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env), log)
  const lifetime = new DisposableStore()
  const ctx = createContext(
    { dataDir: options.dataDir, configFile: options.configFile, shell: 'serve', env: io.env },
    config.value,
    db.value,
    secrets,
    log,
    lifetime,
  )
  // A hand edit while it runs applies as it does under serve; one that is not valid is named on
  // stderr and the last good configuration stays in use.
  config.value.watch()
  const print = printer(io, options.json)
  lifetime.add(
    ctx.push.subscribe((message) => {
      if (message.topic === 'events.appended') for (const e of message.payload.events) print.event(e)
    }),
  )
  const running = await startListening(ctx, {
    listenerPort: options.listenerPort,
    env: io.env,
    forwardTo: options.forwardTo.map((url) => ({
      url,
      events: options.events,
      secret: options.forwardSecret,
    })),
    onForwardAttempt: print.attempt,
  })
  const listener = running.webhooks.address()
  publishRuntimeInfo(ctx, listener.url)
  const closeAll = async () => {
    const queued = await running.stop()
    lifetime.dispose()
    removeRuntimeInfo(options.dataDir)
    config.value.close()
    db.value.close()
    lock.value.release()
    return queued
  }
  if (!listener.url) {
    await closeAll()
    return fail(io, listener.problem?.message ?? 'the webhook listener did not start.', 3)
  }
  const forwardStatus = running.forward.status()
  const targets = forwardStatus.targets.filter((t) => t.enabled)
  io.err(`listening: ${listener.url}/webhooks (data ${options.dataDir})`)
  if (targets.length === 0)
    io.err('forwarding: no target (add --forward-to URL, or forward.targets in the config)')
  for (const t of targets)
    io.err(
      `forwarding: ${t.url} (events ${t.events.join(',')}; ${t.signing === 'original' ? 'original signature' : 're-signed'}; ${t.pending} queued)`,
    )
  if (forwardStatus.authorizationWarning) io.err(`forwarding: ${forwardStatus.authorizationWarning}`)
  if (running.webhooks.status().secretsProblem)
    io.err(`webhooks: ${running.webhooks.status().secretsProblem}`)
  await (options.stopSignal ?? untilSignal())
  io.err('stopping: waiting for the forwards under way…')
  const queued = await closeAll()
  io.err(queued > 0 ? `stopped; ${queued} forwards stay queued for the next run.` : 'stopped.')
  return 0
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
}

/** Receive lines remembered so an event is announced once: beyond this many the oldest go. */
const rememberedReceipts = 10_000

/** `← funding.completed evt_…` (received) and `→ 200 POST http://localhost:3000/hook evt_… 12 ms`
 * (forwarded). The receipt comes from the screen's batched push and the attempt from the forward
 * worker, which can be first: then the attempt prints the receipt before itself, and the push's
 * copy is skipped. So an event's receive line always comes before its forward lines. */
export function printer(io: CliIo, json: boolean, startedAt = Date.now()) {
  const printed = new Set<string>()
  const receipt = (e: { id: string; type: string; deliveries: number; at: number }) => {
    const key = `${e.id}#${e.deliveries}`
    if (printed.has(key)) return
    printed.add(key)
    if (printed.size > rememberedReceipts) printed.delete(printed.values().next().value!)
    if (json)
      io.out(
        JSON.stringify({
          kind: 'event',
          id: e.id,
          type: e.type,
          deliveries: e.deliveries,
          at: new Date(e.at).toISOString(),
        }),
      )
    else io.out(`← ${inert(e.type)} ${inert(e.id)}${e.deliveries > 1 ? ` (delivery ${e.deliveries})` : ''}`)
  }
  return {
    event(e: EventSummary) {
      receipt({ id: e.id, type: e.type, deliveries: e.deliveries, at: e.lastDeliveryAt })
    },
    attempt(a: AttemptReport) {
      // A first forward of an event received during this run (not a replay, not an event queued
      // by an earlier run): its receipt was committed with the row.
      if (!a.replay && a.queuedAt >= startedAt)
        receipt({ id: a.eventId, type: a.type, deliveries: 1, at: a.queuedAt })
      io.out(attemptLine(a, json, { retries: true }))
    },
  }
}

/** Parses argv into ListenOptions (the CLI entry registers this). */
export async function listenCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseCommandArgs(argv, {
    'forward-to': { type: 'string', multiple: true },
    events: { type: 'string' },
    'forward-secret-env': { type: 'string' },
    'listener-port': { type: 'string' },
  })
  if (!args.ok) return fail(io, args.error.message, 2)
  const v = args.value.values
  const port = intFlag(v['listener-port'], 'listener-port')
  if (!port.ok) return fail(io, port.error.message, 2)
  const forwardTo = (v['forward-to'] as string[] | undefined) ?? []
  const badUrl = forwardTo.find((u) => !/^https?:\/\/[^\s]+$/.test(u))
  if (badUrl)
    return fail(io, `--forward-to takes an http:// or https:// URL, not "${maskConfigUrl(badUrl)}".`, 2)
  let events: string[] | undefined
  if (typeof v.events === 'string') {
    const parsed = parsePatterns(v.events)
    if (!parsed.ok)
      return fail(io, `--events: "${parsed.bad}" is not an event type or pattern (funding.*).`, 2)
    events = parsed.patterns
  }
  let forwardSecret: string | undefined
  const secretVar = v['forward-secret-env'] as string | undefined
  if (secretVar !== undefined) {
    forwardSecret = io.env[secretVar]
    if (!forwardSecret)
      return fail(io, `--forward-secret-env ${secretVar}: that environment variable is empty or not set.`, 2)
  }
  return listen(
    {
      forwardTo,
      events,
      forwardSecret,
      listenerPort: port.value,
      dataDir: resolveDataDir(v['data-dir'] as string | undefined, io.env),
      configFile: v.config as string | undefined,
      json: v.json === true,
    },
    io,
  )
}

function fail(io: CliIo, message: string, code: number): number {
  io.err(`watchdesk listen: ${message}`)
  return code
}
