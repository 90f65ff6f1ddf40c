import type { EventSummary } from '../../shared/contract/events'
import { groupLabel } from '../../shared/events'
import { formatDateTime, zoneLabel } from '../../shared/time'
import { formatTable } from './io'

/** The `events` table, from the console's database or a relay's store (`events --store`). Times
 * as the console writes them (src/shared/time.ts), in this machine's zone, said once in the header. */
const headers = () => [
  `received (${zoneLabel(Date.now())})`,
  'type',
  'group',
  'id',
  'deliveries',
  'endpoint',
  'detail',
]

export function eventTableRow(r: EventSummary): (string | number | null)[] {
  return [
    formatDateTime(r.receivedAt),
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
  return formatTable(headers(), rows.map(eventTableRow))
}
