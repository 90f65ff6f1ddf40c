/** What `events shapes` and `events shapes ack` do, imported when they run (cli/shapes.ts declares them). */
import type { DriftStatus } from '../../shared/contract/drift'
import { formatDateTime } from '../../shared/time'
import { openConfigStore } from '../config'
import { addAcknowledged, readDriftStatus } from '../drift'
import type { CommonOptions } from './common'
import { configExit, configFor, dataDirOf, openConsoleDatabaseReadOnly } from './common'
import { exitCodes, failure } from './exit'
import type { ExitCode } from './exit'
import { inert } from '../../shared/inert'
import type { CliIo } from './io'

export function listShapes(options: CommonOptions, io: CliIo): ExitCode {
  const config = configFor(options, io)
  if (!config.ok) return failure(io, 'events shapes', config.error.message, config.error.exit)
  const db = openConsoleDatabaseReadOnly('events shapes', options, io)
  if (!db.ok) return db.error
  try {
    const status = readDriftStatus(db.value, config.value.config.drift)
    io.out(options.json ? JSON.stringify(status, null, 2) : shapesText(status))
    return exitCodes.ok
  } finally {
    db.value.close()
  }
}

/** Text from events (types, field names) is inert: no terminal escapes reach the screen. */
export function shapesText(status: DriftStatus): string {
  if (!status.enabled) return 'The payload drift watch is off (drift.enabled is false).'
  if (status.types.length === 0)
    return 'No event read yet: the console (serve or the app) learns each type’s shape from the events it stores.'
  const width = Math.max(...status.types.map((t) => t.type.length))
  const lines = status.types.map(
    (t) =>
      `${inert(t.type).padEnd(width)}  ${String(t.events).padStart(7)} events  ${String(t.fields).padStart(4)} fields${t.learning ? `  learning (${status.learnEvents} events before it warns)` : ''}`,
  )
  lines.push('')
  if (status.drifts.length === 0) lines.push('No shape change seen.')
  else {
    lines.push(`Shape changes, newest first (${status.unacknowledged} warning):`)
    for (const d of status.drifts)
      lines.push(
        `  ${formatDateTime(d.at)}  ${inert(d.type)}  ${inert(d.eventId)}  ${inert(d.summary)}  ${d.acknowledged ? 'acknowledged' : 'WARNING'}`,
      )
    if (status.unacknowledged > 0)
      lines.push('', 'Once your handlers cope with a change: watchdesk events shapes ack <type> <field…>')
  }
  return lines.join('\n')
}

export async function acknowledge(
  type: string,
  fields: string[],
  options: CommonOptions,
  io: CliIo,
): Promise<ExitCode> {
  const entries = fields.length === 0 ? [type] : fields.map((f) => `${type} ${f}`)
  const store = openConfigStore({ dataDir: dataDirOf(options, io), overlayFile: options.config })
  if (!store.ok) return failure(io, 'events shapes ack', store.error.message, configExit(store.error))
  try {
    const done = await store.value.update(addAcknowledged(entries))
    if (!done.ok)
      return failure(
        io,
        'events shapes ack',
        done.error.message,
        done.error.code === 'unavailable' ? exitCodes.cannotRun : exitCodes.problem,
      )
    io.out(
      `acknowledged ${entries.map((e) => `"${inert(e)}"`).join(', ')} in ${done.value.file} (drift.acknowledged): a running console stops warning at once.`,
    )
    return exitCodes.ok
  } finally {
    store.value.close()
  }
}
