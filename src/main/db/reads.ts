/** The database foundation's own tables, and the one table of a capability it reads, declared
 * (test/repo/table-ownership.test.ts): the storage usage and a backup count the events, and the
 * event readers' cursors (`event-readers.ts`) end at the newest `seq`. */
export const dbTables = {
  name: 'db',
  tables: ['meta', 'schema_migrations'],
  reads: [{ table: 'events', why: 'row counts (storage usage, backup) and the newest seq (event readers)' }],
} as const
