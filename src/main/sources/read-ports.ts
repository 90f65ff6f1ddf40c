import type { Database } from 'better-sqlite3'

/** Read port (CLI, MCP): each source's synced cursor and when it was saved. Throws on a database
 * older than the table (the caller says "no cursors yet"). */
export function sourceCursors(db: Database): { name: string; cursor: string; at: number }[] {
  return db.prepare('SELECT name, cursor, at FROM source_cursors').all() as {
    name: string
    cursor: string
    at: number
  }[]
}
