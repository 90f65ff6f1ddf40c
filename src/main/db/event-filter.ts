import type { EventFilter } from '../../shared/contract/events'

/** The events table's SQL for a view filter (the Events view, exports, forward replays of a filtered
 * set): one definition beside the schema it reads. */
/** `WHERE` clause of a view filter; every branch can use an index. */
export function filterClause(filter: EventFilter): { sql: string; params: unknown[] } {
  const parts: string[] = []
  const params: unknown[] = []
  if (filter.groups?.length) {
    parts.push(`grp IN (${filter.groups.map(() => '?').join(',')})`)
    params.push(...filter.groups)
  }
  if (filter.types?.length) {
    parts.push(`type IN (${filter.types.map(() => '?').join(',')})`)
    params.push(...filter.types)
  }
  if (filter.from !== undefined) {
    parts.push('received_at >= ?')
    params.push(filter.from)
  }
  if (filter.to !== undefined) {
    parts.push('received_at <= ?')
    params.push(filter.to)
  }
  const search = filter.search?.trim()
  if (search) {
    // Prefix match on either id, as two index ranges.
    parts.push('((id >= ? AND id < ?) OR (data_id >= ? AND data_id < ?))')
    params.push(search, search + '\uffff', search, search + '\uffff')
  }
  return { sql: parts.length ? parts.join(' AND ') : '1', params }
}
