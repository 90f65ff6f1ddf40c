import type { Database } from 'better-sqlite3'
import type { DriftStatus } from '../../shared/contract/drift'
import type { DriftConfig } from '../../shared/drift'
import { DisposableStore } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import type { CommittedEvents } from '../committed'
import type { Logger } from '../log'
import { compare, emptyShape, fieldsOf, learn } from './shape'
import { isDriftAcknowledged, statusOf, summaryOf } from './status'
import type { LearnedShape } from './shape'
import { createDriftStore } from './store'
import type { DriftRecord } from './store'

/** Events read per page; the next page is read on a later turn, so a long backlog (the first start
 * over a full store, a relay's catch-up) never holds the thread that answers deliveries. */
const pageSize = 2_000
/** A short pause after a commit, so commits back to back make one read. */
const coalesceMs = 200
/** Without a change to save, what was learned is saved at most this often (and on stop): events
 * read again after a crash are learned again, and a change is saved with the cursor that passed
 * it, so none is reported twice or lost. */
const saveEveryMs = 10_000
/** Changes kept in memory for the status (newest first). */
const keptDrifts = 200

export const shapeChangedRule = 'webhook.shape_changed'

/** The state `webhook.shape_changed` watches (the alerts capability's Condition, structurally). */
export interface ShapeCondition {
  rule: string
  subject: string
  serviceId: null
  active: boolean
  title: string
  body: string
  name: string
}

export interface DriftWatchDeps {
  /** This capability's own tables (drift_shapes, drift_changes, drift_cursor). */
  db: Database
  committed: CommittedEvents
  /** Stored events after `seq` with their `data`, oldest first: the webhooks store's read port. */
  readPage(seq: number, limit: number): { seq: number; id: string; type: string; data: string }[]
  config(): DriftConfig
  /** Reports a change's warning (open while not acknowledged) to the alerts' incidents. */
  condition(c: ShapeCondition): void
  /** The status, whenever it changed (a push to the views). */
  publish(status: DriftStatus): void
  log: Logger
  now(): number
}

export interface DriftWatch extends Disposable {
  status(): DriftStatus
  shape(type: string): LearnedShape | null
  /** One change by id (among the latest 200). */
  record(id: number): DriftRecord | null
  /** Re-reads the acknowledgements (the config changed): warnings now covered close. */
  acknowledgementsChanged(): void
  /** Reads now what the coalescing pause (or a backlog's next page) would read later; false when no
   * read was pending. */
  flush(): boolean
  /** Totals for /metrics. */
  totals(): { changes: number; unacknowledged: number; eventsRead: number }
}

/** Learns each event type's `data` shape from committed events, off the ingest path: a follower of
 * the committed-events channel that reads the stored payloads after its own durable cursor. An
 * event that adds, removes or retypes a field (once its type has `learnEvents` events) is saved as
 * one change with the event, then warned about (`webhook.shape_changed`) until acknowledged. */
export function startDriftWatch(deps: DriftWatchDeps): DriftWatch {
  const store = createDriftStore(deps.db)
  const log = deps.log
  const owned = new DisposableStore()
  const loaded = loadSaved(deps, store)
  const shapes = loaded.shapes
  let { cursor, drifts, changeCount, problem } = loaded
  let eventsRead = 0
  /** Changes noticed while the database took no writes (warned about from memory): saved with the
   * next save, or the shapes saved then, which learned them, would hide them for good. */
  let unsaved: Omit<DriftRecord, 'id'>[] = []
  let savedCursor = cursor
  let savedAt = deps.now()
  const dirty = new Set<string>()
  let reading: NodeJS.Timeout | null = null
  let stopped = false
  /** Acknowledgement state last reported per change, so a config change reports only what moved. */
  const reported = new Map<number, boolean>()

  const acknowledged = (d: DriftRecord) => isDriftAcknowledged(deps.config(), d)

  function report(d: DriftRecord): void {
    const ack = acknowledged(d)
    if (reported.get(d.id) === ack) return
    reported.set(d.id, ack)
    deps.condition(conditionOf(d, ack))
  }

  function read(): void {
    reading = null
    if (stopped || !deps.config().enabled) return
    const rows = deps.readPage(cursor, pageSize)
    if (rows.length === 0) return
    const learnEvents = deps.config().learnEvents
    const found: Omit<DriftRecord, 'id'>[] = []
    for (const row of rows) {
      const fields = fieldsOf(parseData(row.data))
      let shape = shapes.get(row.type)
      if (!shape) shapes.set(row.type, (shape = emptyShape(row.type)))
      if (shape.events >= learnEvents) {
        const changes = compare(shape, fields)
        if (changes.length > 0)
          found.push({ type: row.type, eventId: row.id, eventSeq: row.seq, at: deps.now(), changes })
      }
      learn(shape, fields)
      dirty.add(row.type)
    }
    cursor = rows.at(-1)!.seq
    eventsRead += rows.length
    if (found.length > 0 || unsaved.length > 0 || deps.now() - savedAt >= saveEveryMs) save(found)
    else deps.publish(status())
    if (rows.length === pageSize) reading = setTimeout(read, 0)
  }

  /** Saves the changes with the shapes and the cursor (one transaction), then warns: a warning is
   * never sent for a change that a crash could lose. A database that takes no writes is reported
   * in the status; the warning still goes out (from memory), like the alerts' own. */
  function save(found: Omit<DriftRecord, 'id'>[]): void {
    const moved = [...dirty].map((t) => shapes.get(t)!)
    const owed = unsaved
    let saved: DriftRecord[]
    try {
      const all = store.save([...owed, ...found], moved, cursor, deps.now())
      dirty.clear()
      savedCursor = cursor
      savedAt = deps.now()
      problem = null
      unsaved = []
      saved = all.slice(owed.length)
      if (owed.length > 0) resaved(all.slice(0, owed.length))
    } catch (error) {
      problem = `The payload drift watch cannot save to the database (${String(error)}): what it learned since the last save is learned again after a restart. Free disk space or fix the data dir's permissions.`
      log.warn('payload drift watch: could not save', { error })
      unsaved = [...owed, ...found]
      saved = found.map((f, i) => ({ ...f, id: -(drifts.length + i + 1) }))
    }
    if (saved.length > 0) {
      changeCount += saved.length
      drifts = [...saved.reverse(), ...drifts].slice(0, keptDrifts)
      for (const d of saved) {
        log.warn('payload shape changed', { type: d.type, event: d.eventId, changes: summaryOf(d) })
        report(d)
      }
    }
    deps.publish(status())
  }

  /** Changes warned about from memory now have their rows: they take the place of their in-memory
   * copies (negative ids; the newest of all that were saved before) and are re-stated to the
   * incidents under their subject, which is the same: no second warning. */
  function resaved(records: DriftRecord[]): void {
    drifts = [...[...records].reverse(), ...drifts.filter((d) => d.id >= 0)].slice(0, keptDrifts)
    for (const d of records) report(d)
  }

  function status(): DriftStatus {
    return statusOf(shapes.values(), drifts, cursor, deps.config(), problem)
  }

  const wake = () => {
    if (!stopped) reading ??= setTimeout(read, coalesceMs)
  }
  owned.add(
    deps.committed.subscribe((batch) => {
      if (batch.events.some((e) => !e.duplicate)) wake()
    }),
  )
  // Warnings still owed from before a restart (the incident engine keeps the open ones: this
  // re-states each, and closes those acknowledged meanwhile), then what was committed since.
  for (const d of [...drifts].reverse()) report(d)
  read()

  return {
    status,
    shape: (type) => shapes.get(type) ?? null,
    record: (id) => drifts.find((d) => d.id === id) ?? null,
    acknowledgementsChanged() {
      for (const d of drifts) report(d)
      deps.publish(status())
      wake()
    },
    flush() {
      if (!reading) return false
      clearTimeout(reading)
      read()
      return true
    },
    totals: () => ({
      changes: changeCount,
      unacknowledged: drifts.filter((d) => !acknowledged(d)).length,
      eventsRead,
    }),
    dispose() {
      stopped = true
      if (reading) clearTimeout(reading)
      reading = null
      owned.dispose()
      if (cursor !== savedCursor || dirty.size > 0 || unsaved.length > 0) save([])
    },
  }
}

/** What the watch saved before this start (nothing, and the reason, when it cannot be read). */
function loadSaved(deps: DriftWatchDeps, store: ReturnType<typeof createDriftStore>) {
  const shapes = new Map<string, LearnedShape>()
  try {
    for (const s of store.shapes()) shapes.set(s.type, s)
    return {
      shapes,
      cursor: store.cursor(),
      drifts: store.drifts(keptDrifts),
      changeCount: (deps.db.prepare('SELECT count(*) AS n FROM drift_changes').get() as { n: number }).n,
      problem: null as string | null,
    }
  } catch (error) {
    deps.log.warn('payload drift watch: saved shapes unreadable, learning again', { error })
    shapes.clear()
    return {
      shapes,
      cursor: 0,
      drifts: [] as DriftRecord[],
      changeCount: 0,
      problem:
        `The payload drift watch could not read what it learned (${String(error)}); it starts learning again.` as
          string | null,
    }
  }
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

function conditionOf(d: DriftRecord, acknowledged: boolean): ShapeCondition {
  const summary = summaryOf(d)
  return {
    rule: shapeChangedRule,
    subject: `shape:${d.type}:${d.eventId}`,
    serviceId: null,
    name: `${d.type} payload`,
    active: !acknowledged,
    title: acknowledged ? `${d.type} payload change acknowledged` : `${d.type} payload changed: ${summary}`,
    body: acknowledged
      ? `Acknowledged in drift.acknowledged: ${summary}.`
      : `Event ${d.eventId} was the first to show it: ${summary}. Handlers that read these fields may break. ` +
        `Once they handle it, acknowledge it in the Events view or with \`watchdesk events shapes ack ${d.type}\`.`,
  }
}
