import type { Config } from '../../shared/config'
import type { PollClock } from '../../shared/clock'
import type { StorageHealth } from '../db'
import type { Logger } from '../log'
import type { PushBus } from '../push'
import type { AlertStore } from './store'

/** A write that must never stop an alert (least of all the storage alert): it is done, or the
 * storage health is told why not and `fallback` stands in for its answer. */
export type GuardedWrite = <T>(what: string, write: () => T, fallback: T) => T

export function guardedWrites(storage: StorageHealth): GuardedWrite {
  return (what, write, fallback) => {
    try {
      const value = write()
      storage.committed()
      return value
    } catch (error) {
      storage.failed(what, error)
      return fallback
    }
  }
}

/** What the parts of the alerts capability (sender, records, event cursor) share. */
export interface AlertParts {
  store: AlertStore
  config(): Config['alerts']
  clock: PollClock
  log: Logger
  writing: GuardedWrite
  storage: StorageHealth
  push: PushBus
}
