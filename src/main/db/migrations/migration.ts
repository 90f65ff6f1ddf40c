import type { Database } from 'better-sqlite3'

/** One step of the schema. A released migration is never edited (its SQL lives in its own file,
 * importing nothing from the capabilities): add the next number instead. */
export interface Migration {
  version: number
  name: string
  up(db: Database): void
}
