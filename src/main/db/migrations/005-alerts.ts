import type { Migration } from './migration'

/** Alerts: incidents (open → closed), every alert sent, failed or muted on each channel, mutes set
 * from the console; and the hourly uptime aggregate of each chain (polls, polls up), so uptime
 * over 30 days of twelve chains reads at most 8,640 small rows. */
export const migration005: Migration = {
  version: 5,
  name: 'alerts, incidents, uptime',
  up(db) {
    db.exec(`
      CREATE TABLE alert_incidents (
        id INTEGER PRIMARY KEY,
        rule TEXT NOT NULL,
        subject TEXT NOT NULL,
        service_id INTEGER,
        severity TEXT NOT NULL,
        title TEXT NOT NULL,
        detail TEXT NOT NULL,
        opened_at INTEGER NOT NULL,
        closed_at INTEGER,
        last_alert_at INTEGER,
        alerts INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX alert_incidents_opened ON alert_incidents (opened_at);
      CREATE INDEX alert_incidents_open ON alert_incidents (closed_at) WHERE closed_at IS NULL;
      CREATE INDEX alert_incidents_service ON alert_incidents (service_id, opened_at);

      CREATE TABLE alert_log (
        id INTEGER PRIMARY KEY,
        t INTEGER NOT NULL,
        incident_id INTEGER,
        rule TEXT NOT NULL,
        subject TEXT NOT NULL,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        channel TEXT NOT NULL,
        result TEXT NOT NULL,
        detail TEXT
      ) STRICT;
      CREATE INDEX alert_log_t ON alert_log (t);
      CREATE INDEX alert_log_incident ON alert_log (incident_id);

      CREATE TABLE alert_mutes (
        id INTEGER PRIMARY KEY,
        from_t INTEGER NOT NULL,
        to_t INTEGER NOT NULL,
        chains TEXT,
        reason TEXT,
        created_at INTEGER NOT NULL
      ) STRICT;

      CREATE TABLE chain_uptime (
        service_id INTEGER NOT NULL,
        hour INTEGER NOT NULL,
        polls INTEGER NOT NULL,
        up INTEGER NOT NULL,
        PRIMARY KEY (service_id, hour)
      ) STRICT, WITHOUT ROWID;
    `)
  },
}
