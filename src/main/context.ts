import type { Config } from '../shared/config'
import type { Database, StorageHealth } from './db'
import type { Logger } from './log'
import type { PushBus } from './push'
import type { CommittedEvents } from './committed'
import type { ObservedSecretStore } from './secrets'
import type { ConfigMutation, ConfigStore, LoadedConfig } from './config'
import type { Result } from '../shared/result'
import type { Meters } from './meters'

/** What every capability may lean on. Capabilities never reach into each other; api.ts joins them. */
export interface AppContext {
  dataDir: string
  shell: 'electron' | 'serve'
  /** Running against the demo's local stand-ins (`serve --demo`). */
  demo?: boolean
  version: string
  startedAt: Date
  db: Database
  /** Whether the database takes commits: every writer reports to it, the console shows it. */
  storage: StorageHealth
  secrets: ObservedSecretStore
  push: PushBus
  /** Every committed event, lossless (committed.ts): what capabilities derive from events subscribe here. */
  committed: CommittedEvents
  /** Figures capabilities feed for GET /metrics as they happen (meters.ts). */
  meters: Meters
  log: Logger
  config(): Config
  loadedConfig(): LoadedConfig
  /** The one writer of config.json (also follows hand edits and the CLI's changes live). */
  configStore: ConfigStore
  /** Applies a change to config.json as it is on disk now, validated; subscribers are told. */
  updateConfig(mutation: ConfigMutation): Promise<Result<Config>>
  /** `next` as a change from the saved object last read (`loadedConfig().saved`): only what
   * differs is written, onto the file as it is now, so edits made meanwhile elsewhere survive. */
  saveConfig(next: Record<string, unknown>): Promise<Result<Config>>
  /** Every change applied, from this process or from the file (editor, CLI). */
  onConfigChange(listener: (config: Config) => void): () => void
  /** The console server's address while it serves (serve mode; null in the desktop app), asked of
   * its one writer. The webhook listener's address is asked of the listener itself
   * (`WebhookService.address()`). */
  consoleUrl(): string | null
}
