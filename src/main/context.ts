import type { Config } from '../shared/config'
import type { Database } from './db'
import type { Logger } from './log'
import type { PushBus } from './push'
import type { ObservedSecretStore } from './secrets'
import type { LoadedConfig } from './config'

/** What every capability may lean on. Capabilities never reach into each other; api.ts joins them. */
export interface AppContext {
  dataDir: string
  shell: 'electron' | 'serve'
  version: string
  startedAt: Date
  db: Database
  secrets: ObservedSecretStore
  push: PushBus
  log: Logger
  config(): Config
  loadedConfig(): LoadedConfig
  /** Validates and saves the operator's config, then tells subscribers (poller, listener). */
  saveConfig(next: Record<string, unknown>): Promise<import('../shared/result').Result<Config>>
  onConfigChange(listener: (config: Config) => void): () => void
  urls: { console: string | null; listener: string | null }
}
