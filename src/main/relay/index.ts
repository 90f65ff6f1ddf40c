/** The relay (issue 12): a headless listener writing into a SQLite or PostgreSQL store, the sync
 * API consoles read it through, and the console side that follows relays as sources. */
export { startRelay, isLoopback, exposureWarnings } from './relay'
export type { RelayOptions, RunningRelay } from './relay'
export { copySqliteToPostgres, migratePostgresUrl, openRelayStore, parseStoreUrl } from './open'
export type { StoreUrl } from './open'
export { openSqliteRelayStore, resyncOnConflictHooks } from './sqlite-store'
export { createRelayToken, hashToken, metricsTokenChecker } from './tokens'
export type { RelayStore, SyncEvent, SyncPage, RelayToken, TokenScope, Wakeups } from './store'
export { tokenScopes } from './store'
export { startSources, syncedEventHooks } from './sources'
export type { SourcesService, SourcesOptions } from './sources'
export { fetchPage } from './source-client'
export type { CopyProgress } from './store-copy'
