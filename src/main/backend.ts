import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { DisposableStore } from '../shared/disposable'
import { err, ok } from '../shared/result'
import type { Result } from '../shared/result'
import { createApi } from './api'
import { listenerRestartKeys, openConfigStore, removeRuntimeInfo, writeRuntimeInfo } from './config'
import type { ConfigStore } from './config'
import type { AppContext } from './context'
import {
  acquireInstanceLock,
  createStorageHealth,
  databaseFileName,
  makeDataDirPrivate,
  openDatabase,
} from './db'
import { createLogger } from './log'
import type { Logger } from './log'
import { createPushBus } from './push'
import { createCommittedEvents } from './committed'
import { createKeytarStore, observeSecrets, withEnvironmentSecrets } from './secrets'
import type { ObservedSecretStore, SecretStore } from './secrets'
import type { ApiHandlers } from './transport/dispatch'
import { startServices } from './services'
import type { Services } from './services'
import { version } from './version'
import { createMeters } from './meters'
import type { PollClock } from '../shared/clock'
import type { AdhocTarget } from './forward'

export interface BackendOptions {
  dataDir: string
  configFile?: string
  shell: 'electron' | 'serve'
  env?: NodeJS.ProcessEnv
  /** Defaults to the OS keychain under the service `watchdesk`, with the environment over it. */
  secrets?: SecretStore
  log?: Logger
  /** Overrides `listener.port` from the config (`--listener-port`). */
  listenerPort?: number
  /** The poller's and the alert rules' clock; tests move it by hand. */
  clock?: PollClock
  /** `--forward-to URL` targets of this run. */
  forwardTo?: AdhocTarget[]
  /** `serve --demo`: local stand-ins only; the console labels itself a demo. */
  demo?: boolean
  /** The console server's address, asked of serve (its one writer); none in the desktop app. */
  consoleUrl?: () => string | null
}

export interface Backend {
  context: AppContext
  services: Services
  handlers: ApiHandlers
  /** GET /metrics: the Prometheus text. */
  metrics(): Promise<string>
  /** Rewrites runtime.json from the listener's and the console's addresses (serve calls it once
   * its console listens). */
  publishAddresses(): void
  close(): Promise<void>
}

/** The back end both shells run: one data dir, one database, one keychain, one contract. */
export async function startBackend(options: BackendOptions): Promise<Result<Backend>> {
  const log = options.log ?? createLogger()
  const configStore = openConfigStore({
    dataDir: options.dataDir,
    overlayFile: options.configFile,
    log,
    restartKeys: listenerRestartKeys,
    pinnedKeys: options.listenerPort === undefined ? [] : ['listener.port'],
  })
  if (!configStore.ok) return configStore
  const dir = ensureDir(options.dataDir)
  if (!dir.ok) return dir
  const lock = acquireInstanceLock(options.dataDir)
  if (!lock.ok) return lock
  if (lock.value.tookOver) log.warn(lock.value.tookOver)
  // Whatever way the process ends (an exit after a fatal error included), the lock goes with it.
  const releaseOnExit = () => lock.value.release()
  process.once('exit', releaseOnExit)
  const db = openDatabase(join(options.dataDir, databaseFileName))
  if (!db.ok) {
    lock.value.release()
    process.off('exit', releaseOnExit)
    return db
  }
  const madePrivate = makeDataDirPrivate(options.dataDir)
  if (madePrivate.length > 0) log.info('made the data dir private to this user', { changed: madePrivate })
  const secrets = observeSecrets(
    options.secrets ?? withEnvironmentSecrets(createKeytarStore(), options.env ?? process.env),
    log,
  )
  // What the context subscribes for as long as the backend lives: disposed when it closes.
  const lifetime = new DisposableStore()
  const context = createContext(options, configStore.value, db.value, secrets, log, lifetime)
  configStore.value.watch()
  let started: Awaited<ReturnType<typeof startServices>>
  try {
    started = await startServices(context, {
      listenerPort: options.listenerPort,
      env: options.env ?? process.env,
      clock: options.clock,
      forwardTo: options.forwardTo,
    })
  } catch (error) {
    log.error('a service failed to start', { error })
    started = err('unavailable', `A part of watchdesk failed to start (${(error as Error).message}).`)
  }
  if (!started.ok) {
    lifetime.dispose()
    configStore.value.close()
    removeRuntimeInfo(options.dataDir)
    db.value.close()
    lock.value.release()
    process.off('exit', releaseOnExit)
    return started
  }
  const handlers = createApi(context, started.value.services)
  const metrics = lazyMetrics(context, started.value.services)
  // serve answers GET /metrics: its figures are registered now, in the background, so that counters
  // fed as things happen (the chains' polls) count from the start. The desktop app serves no
  // /metrics and never loads the metrics library.
  if (options.shell === 'serve')
    metrics.load().catch((error: unknown) => log.error('the metrics did not load', { error }))
  const { webhooks } = started.value.services
  const publishAddresses = () => publishRuntimeInfo(context, webhooks.address().url)
  publishAddresses()
  return ok({
    context,
    services: started.value.services,
    handlers,
    metrics: metrics.serve,
    publishAddresses,
    close: async () => {
      configStore.value.close()
      await started.value.stop()
      lifetime.dispose()
      removeRuntimeInfo(options.dataDir)
      db.value.close()
      lock.value.release()
      process.off('exit', releaseOnExit)
    },
  })
}

/** `GET /metrics`, with prom-client and every capability's metrics module imported on first need. */
function lazyMetrics(ctx: AppContext, services: Services) {
  let loaded: Promise<() => Promise<string>> | null = null
  const load = () => (loaded ??= import('./api/metrics').then((m) => m.metricsFor(ctx, services)))
  return { load, serve: async () => (await load())() }
}

export function createContext(
  options: BackendOptions,
  store: ConfigStore,
  db: AppContext['db'],
  secrets: ObservedSecretStore,
  log: Logger,
  lifetime: DisposableStore,
): AppContext {
  const push = createPushBus({ log: log.child({ part: 'push' }) })
  const storage = createStorageHealth(db.name, log.child({ part: 'storage' }), Date.now, {
    warnFreeMb: () => store.current().config.storage.warnFreeMb,
  })
  lifetime.add(storage.onChange((status) => push.publish('storage.status', status)))
  lifetime.add(store.onStatus((status) => push.publish('app.config', status)))
  const startedAt = new Date()
  const asConfig = async (written: ReturnType<ConfigStore['update']>) => {
    const done = await written
    return done.ok ? ok(done.value.config) : done
  }
  return {
    dataDir: options.dataDir,
    shell: options.shell,
    demo: options.demo ?? false,
    version,
    startedAt,
    db,
    storage,
    secrets,
    push,
    committed: createCommittedEvents({ log: log.child({ part: 'committed' }) }),
    meters: createMeters(),
    log,
    config: () => store.current().config,
    loadedConfig: () => store.current(),
    configStore: store,
    updateConfig: (mutation) => asConfig(store.update(mutation)),
    saveConfig: (next) => asConfig(store.replace(next)),
    onConfigChange: (listener) => store.onChange((loaded) => listener(loaded.config)),
    consoleUrl: options.consoleUrl ?? (() => null),
  }
}

/** Publishes this process's addresses in runtime.json, so the CLI reaches the ones that really run
 * (ports may be 0 = any free one): written by whoever started the listener, once it did. */
export function publishRuntimeInfo(ctx: AppContext, listenerUrl: string | null): void {
  writeRuntimeInfo(ctx.dataDir, {
    pid: process.pid,
    shell: ctx.shell,
    version: ctx.version,
    startedAt: ctx.startedAt.toISOString(),
    consoleUrl: ctx.consoleUrl(),
    listenerUrl,
  })
}

export function ensureDir(dir: string): Result<string> {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    return ok(dir)
  } catch (error) {
    return err(
      'unavailable',
      `Cannot create the data dir ${dir} (${(error as Error).message}). Pass --data-dir with a writable folder.`,
    )
  }
}
