/** Recording finished attempts: whatever finished since the last write goes to the outbox in one
 * transaction (with the due-now of targets that recovered), and the events' overall states are
 * published, at most every `statesEveryMs`. Kept for the next write when the database refuses. */
import type { ForwardState } from '../../shared/contract/forward'
import type { PollClock } from '../../shared/clock'
import type { Disposable } from '../../shared/disposable'
import type { AttemptRecord, ForwardStore } from './store.ts'

export interface RecorderOptions {
  store: ForwardStore
  clock: PollClock
  onStates?: (states: Record<string, ForwardState>) => void
  failed: (what: string, error: unknown) => void
  statesEveryMs?: number
}

export interface Recorder {
  add(record: AttemptRecord, eventId: string): void
  /** How many wait to be written. */
  waiting(): number
  /** Writes what waits, and makes the failing rows of `recovered` targets due now; false when the
   * database refused (nothing is lost: it is written with the next call). */
  write(recovered: string[]): boolean
  /** The same inside the caller's transaction (with its claims: one write lock per step); `done`
   * after it committed, nothing when it rolled back (what waited is written next time). */
  writeWithin(recovered: string[], now: number): () => void
  /** Publishes the states that wait for the throttle now (stopping). */
  publishNow(): void
}

export function createRecorder(options: RecorderOptions): Recorder {
  const { store, clock } = options
  const statesEveryMs = options.statesEveryMs ?? 250
  let records: AttemptRecord[] = []
  let ids: string[] = []
  const changed = new Set<string>()
  let statesAt = -Infinity
  let statesTimer: Disposable | null = null

  function publishStates(): void {
    statesTimer = null
    if (!options.onStates || changed.size === 0) return
    statesAt = clock.now()
    const all = [...changed]
    changed.clear()
    try {
      for (let i = 0; i < all.length; i += 500) options.onStates(store.statesOf(all.slice(i, i + 500)))
    } catch (error) {
      options.failed('forward states read', error)
    }
  }

  /** At most every statesEveryMs; the last change always published (a trailing call). */
  function statesSoon(): void {
    if (!options.onStates || statesTimer) return
    const wait = statesAt + statesEveryMs - clock.now()
    if (wait <= 0) publishStates()
    else statesTimer = clock.after(wait, publishStates)
  }

  return {
    add(record, eventId) {
      records.push(record)
      ids.push(eventId)
    },
    waiting: () => records.length,
    write(recovered) {
      if (records.length === 0 && recovered.length === 0) return true
      try {
        store.record(records, recovered, clock.now())
      } catch (error) {
        options.failed('forward attempts record', error)
        return false
      }
      for (const id of ids) changed.add(id)
      records = []
      ids = []
      statesSoon()
      return true
    },
    writeWithin(recovered, now) {
      const taken = records.length
      if (taken > 0 || recovered.length > 0) store.record(records, recovered, now)
      return () => {
        for (const id of ids.splice(0, taken)) changed.add(id)
        records.splice(0, taken)
        if (taken > 0) statesSoon()
      }
    },
    publishNow() {
      statesTimer?.dispose()
      publishStates()
    },
  }
}
