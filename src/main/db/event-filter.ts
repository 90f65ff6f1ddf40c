import type { EventFilter } from '../../shared/contract/events'
import { filterSql, sqliteDialect } from '../../shared/events/filter'

/** The events table's SQL for a view filter (the Events view, exports, forward replays of a filtered
 * set), rendered from the one filter definition in src/shared/events/filter.ts. */
export function filterClause(filter: EventFilter): { sql: string; params: unknown[] } {
  return filterSql(filter, sqliteDialect)
}
