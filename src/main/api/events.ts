import type { EventFilter } from '../../shared/contract/events'
import type { eventsMethods } from '../../shared/contract/events'
import { eventJson } from '../../shared/events/json'
import type { SerializedEvent } from '../../shared/events/json'
import { err, ok } from '../../shared/result'
import type { AppContext } from '../context'
import { maxEventSeq, readSnapshot } from '../db'
import type { Services } from '../services'
import type { ApiHandlers } from '../transport/dispatch'
import type { EventStore } from '../webhooks'

export const exportRowLimit = 50_000
const countCap = 10_000_000

export function eventsApi(
  ctx: AppContext,
  services: Services,
): Pick<ApiHandlers, keyof typeof eventsMethods> {
  const { webhooks } = services
  return {
    'events.list': async ({ filter, after, limit }) => ok(webhooks.store.list(filter, after, limit)),
    // One snapshot: the matched count never exceeds the total counted beside it, and `throughSeq`
    // is the newest event both include.
    'events.count': async ({ filter }) =>
      readSnapshot(ctx.db, () => {
        const matched = webhooks.store.count(filter, countCap)
        const total = Object.keys(filter).length === 0 ? matched : webhooks.store.count({}, countCap)
        return ok({ ...matched, total: total.count, throughSeq: maxEventSeq(ctx.db) })
      }),
    // One snapshot: a redelivery committed between the two reads never shows as an arrival
    // beyond the event's delivery count.
    'events.get': async ({ id }) =>
      readSnapshot(ctx.db, () => {
        const event = webhooks.store.get(id)
        // Each arrival of the id with the replay sentinel's verdict (src/main/replay/).
        return event
          ? ok({ ...event, arrivals: services.replay.arrivals(event) })
          : err('not_found', `No stored event has the id ${id}.`)
      }),
    'events.export': async ({ filter, format }) => ok(exportEvents(webhooks.store, filter, format)),
    'events.listener': async () => ok(webhooks.status()),
    'events.sendTest': async ({ type, endpoint }) => webhooks.sendTest(type, endpoint),
  }
}

const csvColumns = [
  'id',
  'type',
  'group',
  'created_at',
  'received_at',
  'deliveries',
  'endpoint',
  'data_id',
  'funding',
  'conflicts',
  'conflict_body',
  'data',
] as const

/** The filtered set, newest first, as JSON lines or CSV (RFC 4180 quoting). */
export function exportEvents(
  store: EventStore,
  filter: EventFilter,
  format: 'jsonl' | 'csv',
  limit = exportRowLimit,
): { text: string; rows: number; truncated: boolean; fileName: string } {
  const lines: string[] = format === 'csv' ? [csvColumns.join(',')] : []
  const rows = store.forEachForExport(filter, limit + 1, (event) => {
    if (lines.length >= limit + (format === 'csv' ? 1 : 0)) return
    lines.push(format === 'csv' ? csvLine(event) : JSON.stringify(eventJson(event)))
  })
  const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-')
  return {
    text: lines.join('\n') + (lines.length ? '\n' : ''),
    rows: Math.min(rows, limit),
    truncated: rows > limit,
    fileName: `watchdesk-events-${stamp}.${format === 'csv' ? 'csv' : 'jsonl'}`,
  }
}

function csvLine(event: SerializedEvent): string {
  const cells = [
    event.id,
    event.type,
    event.group,
    event.createdAt,
    new Date(event.receivedAt).toISOString(),
    String(event.deliveries),
    event.endpoint ?? '',
    event.dataId ?? '',
    event.fundingLine ?? '',
    String(event.conflicts),
    event.conflictBody ?? '',
    JSON.stringify(event.data),
  ]
  return cells.map(csvCell).join(',')
}

export function csvCell(value: string): string {
  // A leading = + - @ would run as a formula in a spreadsheet: prefix it with a quote.
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}
