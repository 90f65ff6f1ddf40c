import type { Migration } from './migration'

/** A redelivery of a known id with a different body: counted, and the latest differing body kept
 * beside the first (which stays the event's body). */
export const migration004: Migration = {
  version: 4,
  name: 'event conflicts',
  up(db) {
    db.exec(`
      ALTER TABLE events ADD COLUMN conflicts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE events ADD COLUMN conflict_body BLOB;
    `)
  },
}
