import { loadConfig, saveConfig } from '../config'
import type { LoadedConfig } from '../config'
import { ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { createLogger } from '../log'
import type { Logger } from '../log'
import { createKeytarStore, withEnvironmentSecrets } from '../secrets'
import type { SecretStore } from '../secrets'
import { createPaymentsService } from './service'
import type { PaymentsService } from './service'

export interface StandaloneOptions {
  dataDir: string
  configFile?: string
  env: NodeJS.ProcessEnv
  secrets?: SecretStore
  log?: Logger
  fetch?: typeof fetch
}

/** The payments service for the command line: the data dir's config (with --config over it) and
 * the keychain, without the console's instance lock (the console may be running). */
export function standalonePayments(options: StandaloneOptions): Result<PaymentsService> {
  const first = loadConfig(options.dataDir, options.configFile)
  if (!first.ok) return first
  let loaded: LoadedConfig = first.value
  return ok(
    createPaymentsService({
      config: () => loaded.config,
      savedConfig: () => loaded.saved,
      saveConfig: async (next) => {
        const saved = saveConfig(options.dataDir, next)
        if (!saved.ok) return saved
        const reloaded = loadConfig(options.dataDir, options.configFile)
        if (!reloaded.ok) return reloaded
        loaded = reloaded.value
        return ok(loaded.config)
      },
      secrets: options.secrets ?? withEnvironmentSecrets(createKeytarStore(), options.env),
      log: options.log ?? createLogger(undefined, 'warn'),
      env: options.env,
      fetch: options.fetch,
    }),
  )
}
