import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { groupLabel } from '../../shared/events'
import { resolveDataDir } from '../config'
import { databaseFileName, openDatabase } from '../db'
import { createEventStore } from '../webhooks'
import { intFlag, parseCommandArgs } from './args'
import { formatTable } from './io'
import type { CliIo } from './io'
import { replayCommand, replayUsage } from './replay'

export const eventsUsage = `watchdesk events [--type T] [--limit 50] [--json] [--data-dir DIR]
  Lists stored webhook events, newest first (--json: one JSON object per line).
${replayUsage}`

export async function eventsCommand(argv: string[], io: CliIo): Promise<number> {
  if (argv[0] === 'replay') return replayCommand(argv.slice(1), io)
  const args = parseCommandArgs(argv, { type: { type: 'string', multiple: true }, limit: { type: 'string' } })
  if (!args.ok) return fail(io, args.error.message)
  const limit = intFlag(args.value.values.limit, 'limit')
  if (!limit.ok) return fail(io, limit.error.message)
  const dataDir = resolveDataDir(args.value.values['data-dir'] as string | undefined, io.env)
  const file = join(dataDir, databaseFileName)
  if (!existsSync(file))
    return fail(
      io,
      `${dataDir} holds no database yet: start watchdesk (serve or the app) there first, or pass --data-dir.`,
    )
  // Read-only and lock-free: the console may be running and writing.
  const db = openDatabase(file, { readonly: true })
  if (!db.ok) return fail(io, db.error.message)
  try {
    const types = args.value.values.type as string[] | undefined
    const { rows } = createEventStore(db.value).list(
      types ? { types } : {},
      undefined,
      Math.max(1, Math.min(limit.value ?? 50, 100_000)),
    )
    if (args.value.values.json) {
      const store = createEventStore(db.value)
      for (const row of rows) {
        const detail = store.get(row.id)
        io.out(
          JSON.stringify({
            id: row.id,
            type: row.type,
            created_at: row.createdAt,
            received_at: new Date(row.receivedAt).toISOString(),
            deliveries: row.deliveries,
            endpoint: row.endpoint,
            data: detail?.data ?? null,
          }),
        )
      }
      return 0
    }
    if (rows.length === 0) {
      io.out(types ? `No stored events of type ${types.join(', ')}.` : 'No events stored yet.')
      return 0
    }
    io.out(
      formatTable(
        ['received', 'type', 'group', 'id', 'deliveries', 'endpoint', 'detail'],
        rows.map((r) => [
          new Date(r.receivedAt).toISOString().replace('T', ' ').slice(0, 19),
          r.type,
          r.group === 'unknown' ? 'unknown type' : groupLabel(r.group),
          r.id,
          r.deliveries,
          r.endpoint,
          r.fundingLine ?? r.dataId,
        ]),
      ),
    )
    return 0
  } finally {
    db.value.close()
  }
}

function fail(io: CliIo, message: string): number {
  io.err(`watchdesk events: ${message}`)
  return 1
}
