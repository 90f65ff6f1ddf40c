/** The relay (issue 12): a headless listener writing into a SQLite or PostgreSQL store, and the
 * sync API consoles read it through. The console side that follows relays is src/main/sources/. */
export { startRelay, isLoopback, exposureWarnings } from './relay'
export type { RelayOptions, RunningRelay } from './relay'
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
