import type { Migration } from './migration'

/** Alerts that survive a crash: the alerts' cursor over committed events (`meta`
 * `alerts.event_cursor`, the last event seq already turned into alerts; set to the newest event
 * here, so an upgrade does not alert on history) and the alert outbox (one row per alert and
 * channel, written with the cursor in one transaction, deleted with its alert_log row once the
 * channel answered). `alert_log.events` lists the event ids an alert covers;
 * `alert_incidents.closed_reason` says how an incident ended (recovered, source removed). */
export const migration009: Migration = {
  version: 9,
  name: 'alert outbox and event cursor',
  up(db) {
    db.exec(`
      CREATE TABLE alert_outbox (
        id INTEGER PRIMARY KEY,
        channel TEXT NOT NULL,
        alert TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      ALTER TABLE alert_log ADD COLUMN events TEXT;
      ALTER TABLE alert_incidents ADD COLUMN closed_reason TEXT;
      INSERT INTO meta (key, value)
        SELECT 'alerts.event_cursor', CAST(coalesce(max(seq), 0) AS TEXT) FROM events
        WHERE true ON CONFLICT (key) DO NOTHING;
    `)
  },
}
