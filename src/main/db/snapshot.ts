import type { Database } from 'better-sqlite3'

/** Runs `read` in one read transaction: every SELECT in it sees the database as the first one saw
 * it, so an answer built from several reads never shows one side of a commit that landed between
 * them (the commit worker, the forward worker and other processes write on their own
 * connections). Inside a transaction already open it joins that one. `read` must not await. */
export function readSnapshot<T>(db: Database, read: () => T): T {
  return db.transaction(read)()
}
