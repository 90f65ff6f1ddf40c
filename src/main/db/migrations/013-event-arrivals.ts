import type { Migration } from './migration'

/** Each arrival of an event's id (the replay sentinel, src/main/replay/): when, from which address,
 * and whether its body differed. Written in the events commit transaction by the replay
 * capability's commit hook; the verdict is derived from these facts and the retry ladder. Keyed by
 * the event's seq, so retention removes an event's arrivals with it. `replay_suspects` holds the
 * first suspected replay of each id (its alert is raised once, when that row is inserted). */
export const migration013: Migration = {
  version: 13,
  name: 'event arrivals',
  up(db) {
    db.exec(`
      CREATE TABLE event_arrivals (
        event_seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        remote TEXT,
        conflicted INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX event_arrivals_by_event ON event_arrivals (event_seq, at);
      CREATE TABLE replay_suspects (
        event_seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL,
        type TEXT NOT NULL,
        at INTEGER NOT NULL,
        remote TEXT,
        reason TEXT NOT NULL
      );
      CREATE INDEX replay_suspects_by_time ON replay_suspects (at);
    `)
  },
}
