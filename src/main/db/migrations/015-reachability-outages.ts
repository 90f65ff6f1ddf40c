import type { Migration } from './migration'

/** Times the listener could not be reached from the service, as the console saw them (the public
 * URL's check failing, the listener not listening): the endpoint-disablement watch forecasts from
 * them when deliveries exhaust the retry ladder, also across a restart during a long outage.
 * `reachability_settled`: per endpoint, failures up to `through` were answered by deliveries
 * arriving again, so a restart does not raise them a second time. */
export const migration015: Migration = {
  version: 15,
  name: 'reachability outages',
  up(db) {
    db.exec(`
      CREATE TABLE reachability_outages (
        id INTEGER PRIMARY KEY,
        cause TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        seen_at INTEGER NOT NULL,
        ended_at INTEGER,
        detail TEXT NOT NULL
      );
      CREATE INDEX reachability_outages_open ON reachability_outages (cause, ended_at);
      CREATE TABLE reachability_settled (
        endpoint TEXT PRIMARY KEY,
        through INTEGER NOT NULL
      );
    `)
  },
}
