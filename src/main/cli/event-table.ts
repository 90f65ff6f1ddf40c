import type { EventSummary } from '../../shared/contract/events'
import { groupLabel } from '../../shared/events'
import { formatTable } from './io'

/** The `events` table, from the console's database or a relay's store (`events --store`). */
const headers = ['received', 'type', 'group', 'id', 'deliveries', 'endpoint', 'detail']

export function eventTableRow(r: EventSummary): (string | number | null)[] {
  return [
    new Date(r.receivedAt).toISOString().replace('T', ' ').slice(0, 19),
    r.type,
    r.group === 'unknown' ? 'unknown type' : groupLabel(r.group),
    r.id,
    r.deliveries,
    r.endpoint,
    r.fundingLine ?? r.dataId,
  ]
}

/** The table, or the sentence that says nothing matched. */
export function eventsTable(rows: readonly EventSummary[], types: readonly string[] | undefined): string {
  if (rows.length === 0)
    return types ? `No stored events of type ${types.join(', ')}.` : 'No events stored yet.'
  return formatTable(headers, rows.map(eventTableRow))
}
