import type { RetentionConfig } from '../../shared/config'
import { commitHooks, retentionRules } from '../contributions'
import { formatDate, formatDateTime, zoneLabel } from '../../shared/time'
import { dirname, join } from 'node:path'
import type { EventFilter } from '../../shared/contract/events'
import { eventJson } from '../../shared/events/json'
import { acquireStoreLock, databaseFileName } from '../db'
import type { InstanceLock } from '../db'
import { defaultDataDir } from '../config'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { mkdirSync } from 'node:fs'
import { openRelayStore, parseStoreUrl, startRelay, createRelayToken, migratePostgresUrl } from '../relay'
import type { RelayStore, TokenScope } from '../relay'
import { tokenScopes } from '../relay'
import { createKeytarStore, observeSecrets, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import { SyncConfig } from '../../shared/config'
import { InvalidArgumentError, Option } from 'commander'
import type { Command } from 'commander'
import type { CliContext, CommonOptions } from './common'
import { configFor, dataDirOf, example, positiveInt, withCommon } from './common'
import { exitCodes, failure } from './exit'
import { eventsTable } from './event-table'
import { heldCliLogger, printList } from './io'
import type { CliIo } from './io'

interface RelayOptions extends CommonOptions {
  store?: string
  host: string
  listenerPort: number
  port: number
  tlsCert?: string
  tlsKey?: string
}

export interface RelayCliOptions {
  store: string
  host: string
  listenerPort: number
  port: number
  tls?: { certFile: string; keyFile: string }
  /** Defaults to the OS keychain with WATCHDESK_WEBHOOK_SECRETS over it. */
  secrets?: SecretStore
  retention?: () => RetentionConfig
  /** `sync.*` from config.json (limits, commit deadline); the defaults without one. */
  sync?: SyncConfig
  /** `listener.maxConnections` and `listener.maxBodyBytesInFlight` from config.json. */
  listenerLimits?: { maxConnections: number; maxBodyBytesInFlight: number }
}

/** The relay's own data dir: `--data-dir` or WATCHDESK_DATA_DIR when given, else the `relay`
 * folder inside the default data dir — never the console's own database (one writer per store). */
export function relayDataDirOf(options: CommonOptions, io: CliIo): string {
  if (options.dataDir !== undefined || io.env.WATCHDESK_DATA_DIR !== undefined) return dataDirOf(options, io)
  return join(defaultDataDir(io.env), 'relay')
}

const storeOf = (options: RelayOptions, io: CliIo) =>
  options.store ?? `sqlite:${join(relayDataDirOf(options, io), databaseFileName)}`

export function registerRelay(program: Command, ctx: CliContext): void {
  const relay = withCommon(program.command('relay'))
    .description(
      "Headless, always-on receiver: the webhook listener writing into the store, and the sync API consoles follow (GET /sync/events, /sync/stream, /sync/listener with Authorization: Bearer <relay token>). Webhook secrets from this host's keychain or WATCHDESK_WEBHOOK_SECRETS.",
    )
    .option(
      '--store <url>',
      'sqlite:PATH or postgres://… (default: sqlite:<data dir>/watchdesk.db; without --data-dir or WATCHDESK_DATA_DIR the data dir is the relay folder of the default one)',
    )
    .option('--host <host>', 'address both servers bind', '127.0.0.1')
    .option('--listener-port <port>', 'webhook listener port', portNumber('listener-port'), 7421)
    .option('--port <port>', 'sync API port', portNumber('port'), 7422)
    .option('--tls-cert <file>', 'serve both over TLS with this certificate (with --tls-key)')
    .option('--tls-key <file>', 'the private key for --tls-cert')
    .action(async (options: RelayOptions) => {
      if (!!options.tlsCert !== !!options.tlsKey)
        return ctx.exit(failure(ctx.io, 'relay', '--tls-cert and --tls-key go together.', exitCodes.usage))
      // sync.* and retention.* from the data dir's config.json (and --config); defaults without one.
      const config = configFor({ ...options, dataDir: relayDataDirOf(options, ctx.io) }, ctx.io)
      if (!config.ok) return ctx.exit(failure(ctx.io, 'relay', config.error.message, config.error.exit))
      ctx.exit(
        await runRelay(
          {
            store: storeOf(options, ctx.io),
            retention: () => config.value.config.retention,
            host: options.host,
            listenerPort: options.listenerPort,
            port: options.port,
            ...(options.tlsCert && options.tlsKey
              ? { tls: { certFile: options.tlsCert, keyFile: options.tlsKey } }
              : {}),
            ...(ctx.deps.secrets ? { secrets: ctx.deps.secrets } : {}),
            sync: config.value.config.sync,
            listenerLimits: {
              maxConnections: config.value.config.listener.maxConnections,
              maxBodyBytesInFlight: config.value.config.listener.maxBodyBytesInFlight,
            },
          },
          ctx.io,
        ),
      )
    })
  example(
    relay,
    'watchdesk relay --store postgres://relay@db.internal/watchdesk --host 0.0.0.0',
    'watchdesk relay token create laptop --store sqlite:/var/lib/watchdesk/watchdesk.db',
  )
  relay
    .command('migrate')
    .summary("apply the store's schema steps alone (e.g. as the PostgreSQL owner role), then exit")
    .description(
      'Brings the store up to the schema this watchdesk needs and exits. With PostgreSQL, run it with a role that may create tables (the owner); the relays can then run with a role that only has SELECT, INSERT, UPDATE, DELETE on the tables and USAGE on the sequences.',
    )
    .action(async (_options: unknown, command: Command) => {
      const options = command.optsWithGlobals() as RelayOptions
      ctx.exit(await relayMigrateCommand(storeOf(options, ctx.io), ctx.io))
    })
  const token = relay
    .command('token')
    .summary('relay tokens: create (printed once; only its hash is kept), list, revoke')
    .description('Tokens consoles use to follow this relay. The store keeps only their hashes.')
  const tokenAction =
    (action: 'create' | 'list' | 'revoke') =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command
      const options = command.optsWithGlobals() as RelayOptions & { scope?: TokenScope }
      const name = action === 'list' ? undefined : (args[0] as string)
      ctx.exit(
        await relayTokenCommand(
          {
            action,
            name,
            store: storeOf(options, ctx.io),
            json: options.json === true,
            scope: options.scope ?? 'read',
          },
          ctx.io,
        ),
      )
    }
  token
    .command('create')
    .summary('create a token and print it once')
    .argument('<name>')
    .addOption(
      new Option(
        '--scope <scope>',
        'read: the sync API and /metrics (consoles); metrics: only /metrics (Prometheus); admin: everything',
      )
        .choices(tokenScopes)
        .argParser(scopeOption)
        .default('read'),
    )
    .action(tokenAction('create'))
  token.command('list').summary('the tokens, live or revoked').action(tokenAction('list'))
  token
    .command('revoke')
    .summary('refuse a token from now on')
    .argument('<name>')
    .action(tokenAction('revoke'))
}

function scopeOption(value: string): TokenScope {
  if ((tokenScopes as readonly string[]).includes(value)) return value as TokenScope
  throw new InvalidArgumentError(`--scope takes ${tokenScopes.join(', ')}, not "${value}".`)
}

function portNumber(name: string) {
  const parse = positiveInt(name, 0)
  return (value: string): number => {
    const n = parse(value)
    if (n > 65535) throw new InvalidArgumentError(`--${name} takes a port from 0 to 65535, not "${value}".`)
    return n
  }
}

/** Runs until SIGINT or SIGTERM; exit 3 when it cannot start (store, ports, TLS files). */
export async function runRelay(options: RelayCliOptions, io: CliIo): Promise<number> {
  // The URLs are the first lines; what was logged while starting follows them.
  const { log, release } = heldCliLogger(io)
  const url = parseStoreUrl(options.store)
  if (!url.ok) return fail(io, url.error.message, 2, release)
  const sync = options.sync ?? SyncConfig.parse({})
  // One writer per SQLite file: a console's, `listen`'s or another relay's database is refused.
  const lock = url.value.kind === 'sqlite' ? lockStore(url.value.file) : ok(null)
  if (!lock.ok) return fail(io, lock.error.message, 3, release)
  const unlock = () => lock.value?.release()
  if (lock.value?.tookOver) log.warn(lock.value.tookOver)
  const store = await openRelayStore(url.value, log, {
    commitDeadlineMs: sync.commitDeadlineMs,
    retention: retentionRules,
    hooks: commitHooks.relay,
  })
  if (!store.ok) return fail(io, store.error.message, 3, () => (unlock(), release()))
  const secrets = observeSecrets(options.secrets ?? withEnvironmentSecrets(createKeytarStore(), io.env), log)
  const relay = await startRelay({
    store: store.value,
    secrets,
    log,
    listener: { host: options.host, port: options.listenerPort, tls: options.tls, ...options.listenerLimits },
    sync: {
      host: options.host,
      port: options.port,
      tls: options.tls,
      maxStreams: sync.maxStreams,
      maxConnections: sync.maxConnections,
      unauthenticated: sync.unauthenticated,
    },
    ...(options.retention ? { retention: options.retention } : {}),
  })
  if (!relay.ok) {
    await store.value.close()
    return fail(io, relay.error.message, 3, () => (unlock(), release()))
  }
  const status = await relay.value.status()
  io.out(`watchdesk relay on ${store.value.where}`)
  io.out(`wake-ups: ${store.value.wakeups().detail}`)
  // The address it is bound to (0.0.0.0 means every interface), not a loopback stand-in.
  io.out(`webhooks: ${boundUrl(relay.value.listenerUrl, options.host)}/webhooks`)
  io.out(`sync:     ${boundUrl(relay.value.syncUrl, options.host)}/sync/`)
  for (const warning of relay.value.warnings) io.out(`warning: ${warning}`)
  release()
  if (status.secretsProblem) io.err(`watchdesk relay: ${status.secretsProblem}`)
  await new Promise<void>((resolveStop) => {
    process.once('SIGINT', () => resolveStop())
    process.once('SIGTERM', () => resolveStop())
  })
  io.err('stopping…')
  await relay.value.stop()
  await store.value.close()
  unlock()
  return 0
}

/** The SQLite store's lock, taken in its folder (made if missing, private like a data dir). */
function lockStore(file: string): Result<InstanceLock> {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
  } catch (error) {
    return err('unavailable', `Cannot create ${dirname(file)}: ${(error as Error).message}.`)
  }
  return acquireStoreLock(file)
}

/** `url` with the host the server was asked to bind (`0.0.0.0`, `::`, a LAN address). */
function boundUrl(url: string, host: string): string {
  const u = new URL(url)
  u.hostname = host.includes(':') ? `[${host}]` : host
  return u.toString().replace(/\/$/, '')
}

/** `relay migrate`: exit 0 with the schema version, 3 when the store cannot be migrated. */
export async function relayMigrateCommand(storeText: string, io: CliIo): Promise<number> {
  const url = parseStoreUrl(storeText)
  if (!url.ok) return fail(io, url.error.message, 2)
  if (url.value.kind === 'sqlite') {
    // Opening a SQLite store applies its steps (one relay per file, nothing to separate).
    return withStore(storeText, io, async (store) => {
      io.out(`${store.where} is at the current schema`)
      return 0
    })
  }
  const outcome = await migratePostgresUrl(url.value.url)
  if (!outcome.ok) return fail(io, outcome.error.message, 3)
  io.out(
    outcome.value.applied > 0
      ? `applied ${outcome.value.applied} schema step(s); the database is at version ${outcome.value.version}`
      : `the database is already at version ${outcome.value.version}; nothing to apply`,
  )
  return 0
}

export async function relayTokenCommand(
  options: {
    action: string | undefined
    name: string | undefined
    store: string
    json: boolean
    scope?: TokenScope
  },
  io: CliIo,
): Promise<number> {
  const { action, name } = options
  if (action !== 'list' && action !== 'create' && action !== 'revoke')
    return fail(io, 'relay token takes create NAME, list or revoke NAME.', 2)
  if (action !== 'list' && !name) return fail(io, `relay token ${action} needs a NAME.`, 2)
  return withStore(options.store, io, async (store) => {
    if (action === 'create') {
      const scope = options.scope ?? 'read'
      const token = await createRelayToken(store, name!, scope)
      if (!token.ok) return fail(io, token.error.message, token.error.code === 'bad_request' ? 2 : 1)
      io.err(
        `Relay token "${name}" (scope ${scope}) created. It is shown once; the store keeps only its hash:`,
      )
      // Alone on stdout (the message above is on stderr), so `… | tee` or `$(…)` takes just the token.
      io.out(token.value)
      return 0
    }
    if (action === 'revoke') {
      if (await store.tokens.revoke(name!, Date.now())) {
        io.out(`revoked the relay token "${name}"; it is refused from now on`)
        return 0
      }
      return fail(io, `no live relay token is named "${name}" (watchdesk relay token list).`)
    }
    const tokens = await store.tokens.list()
    printList(io, options.json, tokens, {
      empty: 'No relay tokens yet. Create one with: watchdesk relay token create NAME',
      headers: ['name', 'scope', `created (${zoneLabel(Date.now())})`, 'state'],
      row: (t) => [
        t.name,
        t.scope,
        formatDateTime(t.createdAt),
        t.revokedAt === null ? 'live' : `revoked ${formatDate(t.revokedAt)}`,
      ],
    })
    return 0
  })
}

/** `events --store URL`: any relay store (a SQLite file or PostgreSQL), the usual filters. */
export async function eventsFromStore(
  options: { store: string; types?: string[]; limit: number; json: boolean },
  io: CliIo,
): Promise<number> {
  return withStore(options.store, io, async (store) => {
    const filter: EventFilter = options.types ? { types: options.types } : {}
    const { rows } = await store.list(filter, undefined, Math.max(1, Math.min(options.limit, 100_000)))
    if (options.json) {
      for (const row of rows) {
        const detail = await store.get(row.id)
        if (detail) io.out(JSON.stringify(eventJson(detail)))
      }
      return 0
    }
    io.out(eventsTable(rows, options.types))
    return 0
  })
}

async function withStore(
  text: string,
  io: CliIo,
  use: (store: RelayStore) => Promise<number>,
): Promise<number> {
  const url = parseStoreUrl(text)
  if (!url.ok) return fail(io, url.error.message, 2)
  const store = await openRelayStore(url.value)
  if (!store.ok) return fail(io, store.error.message, 3)
  try {
    return await use(store.value)
  } finally {
    await store.value.close()
  }
}

function fail(io: CliIo, message: string, code = 1, releaseLog?: () => void): number {
  releaseLog?.()
  io.err(`watchdesk relay: ${message}`)
  return code
}
