/** The console side of relays (issue 12): each configured source catches up from its cursor and
 * follows the live stream into the local SQLite. The relay server is src/main/relay/. */
export { startSources } from './sources'
export type { SourcesService, SourcesOptions } from './sources'
export { fetchPage } from './client'
export { syncedEventHooks } from './commit'
export { contribution } from './contribution'
export { sourceConditions } from './conditions'
export { sourceCursors } from './read-ports'
