/** The relay (issue 12): a headless listener writing into a SQLite or PostgreSQL store, and the
 * sync API consoles read it through. The console side that follows relays is src/main/sources/. */
import type { Result } from '../../shared/result'
import type { RelayOptions, RunningRelay } from './relay'

export { isLoopback, exposureWarnings } from './exposure'
export type { RelayOptions, RunningRelay } from './relay'

/** The relay's server, loaded when a relay starts: it serves /metrics from its start, so it loads
 * prom-client, which the console's back end (reaching this folder for its contribution, commit
 * hooks and token check) loads only with its own first metrics. */
export async function startRelay(options: RelayOptions): Promise<Result<RunningRelay>> {
  return (await import('./relay')).startRelay(options)
}
export {
  copyPostgresToSqlite,
  copySqliteToPostgres,
  migratePostgresUrl,
  openRelayStore,
  parseStoreUrl,
} from './open'
export type { StoreUrl } from './open'
export { openSqliteRelayStore, resyncOnConflictHooks } from './sqlite-store'
export { createRelayToken, hashToken, metricsTokenChecker } from './tokens'
export type { RelayStore, SyncEvent, SyncPage, RelayToken, TokenScope, Wakeups } from './store'
export { tokenScopes } from './store'
export type { CopyProgress } from './store-copy'
export { contribution } from './contribution'
