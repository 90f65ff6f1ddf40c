import type { Migration } from './migration'

/** One incident per subject: `alert_incidents.causes` is its timeline (JSON: every cause that
 * opened, joined, escalated, changed or cleared, with its time), so the Alerts view shows how one
 * outage moved from "error rate" to "down" without a second incident. */
export const migration012: Migration = {
  version: 12,
  name: 'incident causes',
  up(db) {
    db.exec(`ALTER TABLE alert_incidents ADD COLUMN causes TEXT;`)
  },
}
