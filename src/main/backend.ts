import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from '../shared/config'
import { err, ok } from '../shared/result'
import type { Result } from '../shared/result'
import { createApi } from './api'
import { loadConfig, saveConfig } from './config'
import type { LoadedConfig } from './config'
import type { AppContext } from './context'
import { acquireInstanceLock, createStorageHealth, databaseFileName, openDatabase } from './db'
import { createLogger } from './log'
import type { Logger } from './log'
import { createPushBus } from './push'
import { createKeytarStore, observeSecrets, withEnvironmentSecrets } from './secrets'
import type { ObservedSecretStore, SecretStore } from './secrets'
import type { ApiHandlers } from './transport/dispatch'
import { startServices } from './services'
import type { Services } from './services'
import { version } from './version'
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
  /** `--forward-to URL` targets of this run. */
  forwardTo?: AdhocTarget[]
}

export interface Backend {
  context: AppContext
  services: Services
  handlers: ApiHandlers
  close(): Promise<void>
}

/** The back end both shells run: one data dir, one database, one keychain, one contract. */
export async function startBackend(options: BackendOptions): Promise<Result<Backend>> {
  const log = options.log ?? createLogger()
  const loaded = loadConfig(options.dataDir, options.configFile)
  if (!loaded.ok) return loaded
  const dir = ensureDir(options.dataDir)
  if (!dir.ok) return dir
  const lock = acquireInstanceLock(options.dataDir)
  if (!lock.ok) return lock
  const db = openDatabase(join(options.dataDir, databaseFileName))
  if (!db.ok) {
    lock.value.release()
    return db
  }
  const secrets = observeSecrets(
    options.secrets ?? withEnvironmentSecrets(createKeytarStore(), options.env ?? process.env),
  )
  const context = createContext(options, loaded.value, db.value, secrets, log)
  const started = await startServices(context, {
    listenerPort: options.listenerPort,
    env: options.env ?? process.env,
    forwardTo: options.forwardTo,
  })
  if (!started.ok) {
    db.value.close()
    lock.value.release()
    return started
  }
  const handlers = createApi(context, started.value.services)
  return ok({
    context,
    services: started.value.services,
    handlers,
    close: async () => {
      await started.value.stop()
      db.value.close()
      lock.value.release()
    },
  })
}

export function createContext(
  options: BackendOptions,
  initial: LoadedConfig,
  db: AppContext['db'],
  secrets: ObservedSecretStore,
  log: Logger,
): AppContext {
  let loaded = initial
  const listeners = new Set<(config: Config) => void>()
  const push = createPushBus()
  const storage = createStorageHealth(db.name, log.child({ part: 'storage' }))
  storage.onChange((status) => push.publish('storage.status', status))
  return {
    dataDir: options.dataDir,
    shell: options.shell,
    version,
    startedAt: new Date(),
    db,
    storage,
    secrets,
    push,
    log,
    config: () => loaded.config,
    loadedConfig: () => loaded,
    saveConfig: async (next) => {
      const saved = saveConfig(options.dataDir, next)
      if (!saved.ok) return saved
      const reloaded = loadConfig(options.dataDir, options.configFile ?? undefined)
      if (!reloaded.ok) return reloaded
      loaded = reloaded.value
      for (const listener of listeners) listener(loaded.config)
      return ok(loaded.config)
    },
    onConfigChange: (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    urls: { console: null, listener: null, listenerProblem: null },
  }
}

export function ensureDir(dir: string): Result<string> {
  try {
    mkdirSync(dir, { recursive: true })
    return ok(dir)
  } catch (error) {
    return err(
      'unavailable',
      `Cannot create the data dir ${dir} (${(error as Error).message}). Pass --data-dir with a writable folder.`,
    )
  }
}
