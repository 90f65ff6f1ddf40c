import type { Config } from '../shared/config'
import type { Database, StorageHealth } from './db'
import type { Logger } from './log'
import type { PushBus } from './push'
import type { ObservedSecretStore } from './secrets'
import type { LoadedConfig } from './config'
import type { Meters } from './alerts/meters'

/** A webhook listener that could not start: where it tried, the cause and the fix. */
export interface ListenerProblem {
  host: string
  port: number
  /** Another program (often another watchdesk) holds the port. */
  inUse: boolean
  cause: string
  fix: string
  /** `cause` and `fix` as one sentence, for logs, stderr and the Events view. */
  message: string
}

/** What every capability may lean on. Capabilities never reach into each other; api.ts joins them. */
export interface AppContext {
  dataDir: string
  shell: 'electron' | 'serve'
  version: string
  startedAt: Date
  db: Database
  /** Whether the database takes commits: every writer reports to it, the console shows it. */
  storage: StorageHealth
  secrets: ObservedSecretStore
  push: PushBus
  /** Figures capabilities feed for GET /metrics as they happen (alerts/meters.ts). */
  meters: Meters
  log: Logger
  config(): Config
  loadedConfig(): LoadedConfig
  /** Validates and saves the operator's config, then tells subscribers (poller, listener). */
  saveConfig(next: Record<string, unknown>): Promise<import('../shared/result').Result<Config>>
  onConfigChange(listener: (config: Config) => void): () => void
  urls: {
    console: string | null
    /** The webhook listener's base URL while it listens. */
    listener: string | null
    /** Why the listener is not running (port taken, TLS files unreadable). Null while it listens;
     * unset before it was started. */
    listenerProblem?: ListenerProblem | null
  }
}
