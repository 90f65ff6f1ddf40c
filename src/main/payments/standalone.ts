import { openConfigStore } from '../config'
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
  const store = openConfigStore({ dataDir: options.dataDir, overlayFile: options.configFile })
  if (!store.ok) return store
  const config = store.value
  return ok(
    createPaymentsService({
      config: () => config.current().config,
      savedConfig: () => config.current().saved,
      // Through the one writer: only what this command changed is applied to the file as it is
      // now, so a console or an editor writing meanwhile loses nothing.
      saveConfig: async (next) => {
        const saved = await config.replace(next)
        return saved.ok ? ok(saved.value.config) : saved
      },
      secrets: options.secrets ?? withEnvironmentSecrets(createKeytarStore(), options.env),
      log: options.log ?? createLogger(undefined, 'warn'),
      env: options.env,
      fetch: options.fetch,
    }),
  )
}
