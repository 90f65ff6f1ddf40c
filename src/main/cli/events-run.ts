import { eventJson } from '../../shared/events/json'
import { eventTypeInfo, eventTypes } from '../../shared/events'
import { didYouMean } from '../../shared/suggest'
import { maxEventSeq } from '../db'
import type { Database } from '../db'
import { createEventStore, eventReads } from '../webhooks'
import type { EventStore } from '../webhooks'
import { openConsoleDatabaseReadOnly } from './common'
import { exitCodes } from './exit'
import { eventTableRow, eventsTable } from './event-table'
import { inert } from '../../shared/inert'
import { pause } from './io'
import type { CliIo } from './io'
import type { CommonOptions } from './declare'

/** What `watchdesk events` does; its declaration (./events.ts) imports this when it runs. */

export interface EventsOptions extends CommonOptions {
  type?: string[]
  limit: number
  follow?: boolean
  interval: number
  store?: string
}

export async function runEvents(options: EventsOptions, io: CliIo): Promise<number> {
  // Unknown types may be stored (a newer service), so a typo is a note, not a refusal.
  for (const type of options.type ?? [])
    if (!eventTypeInfo(type))
      io.err(
        `watchdesk events: "${type}" is not a known event type.${didYouMean(
          type,
          eventTypes.map((t) => t.type),
        )}`,
      )
  // The relay command's module (and with it every capability) loads only for --store: a plain
  // `events` reads the console's database and needs none of them.
  if (options.store)
    return (await import('./relay')).eventsFromStore(
      { store: options.store, types: options.type, limit: options.limit, json: options.json === true },
      io,
    )
  const db = openConsoleDatabaseReadOnly('events', options, io)
  if (!db.ok) return db.error
  try {
    const store = createEventStore(db.value)
    if (options.follow) return await follow(db.value, store, options, io)
    const types = options.type
    const limit = Math.min(options.limit, 100_000)
    if (options.json) {
      store.forEachForExport(types ? { types } : {}, limit, (event) =>
        io.out(JSON.stringify(eventJson(event))),
      )
      return exitCodes.ok
    }
    const { rows } = store.list(types ? { types } : {}, undefined, limit)
    io.out(eventsTable(rows, types))
    return exitCodes.ok
  } finally {
    db.value.close()
  }
}

/** How far back `--follow` watches for a conflict on an event it already printed (by seq). */
const conflictWindow = 10_000

/** New rows by their sequence number, oldest first, until Ctrl-C. Each event is one write, so an
 * interrupt never leaves half a line. A conflicting redelivery (here or synced from a relay) of one
 * of the last 10,000 events prints that event again, with its new conflict count: a range of the
 * primary key, so watching costs no scan of the table. */
async function follow(db: Database, store: EventStore, options: EventsOptions, io: CliIo): Promise<number> {
  const interrupted: { value: boolean; wake?: () => void } = { value: false }
  const stopListening = io.onInterrupt?.(() => {
    interrupted.value = true
    interrupted.wake?.()
  })
  const types = options.type ? new Set(options.type) : null
  const events = eventReads(db)
  let last = maxEventSeq(db)
  // The conflict count each watched event was last printed with (or had when the follow started).
  const printedConflicts = new Map<number, number>()
  for (const row of events.conflicted(last - conflictWindow, last))
    printedConflicts.set(row.seq, row.conflicts)
  const print = (id: string) => {
    const event = store.get(id)
    if (!event) return
    printedConflicts.set(event.seq, event.conflicts)
    if (types && !types.has(event.type)) return
    if (options.json) io.out(JSON.stringify(eventJson(event)))
    else
      io.out(
        eventTableRow(event)
          .map((c) => (c === null ? '—' : inert(String(c))))
          .join('  '),
      )
  }
  // On stderr, so JSON lines stay clean; it also tells a script that the follow has started.
  io.err(`following new events in ${db.name} (Ctrl-C ends)`)
  try {
    while (!interrupted.value) {
      const rows = events.after(last)
      for (const row of rows) {
        last = row.seq
        print(row.id)
      }
      for (const row of events.conflicted(last - conflictWindow, last))
        if ((printedConflicts.get(row.seq) ?? 0) < row.conflicts) print(row.id)
      for (const seq of printedConflicts.keys())
        if (seq <= last - conflictWindow) printedConflicts.delete(seq)
      if (rows.length < 1000) await pause(options.interval, interrupted)
    }
    return exitCodes.ok
  } finally {
    stopListening?.dispose()
  }
}
