import type { Migration } from './migration'

/** Who set a mute: the console (its Alerts view, `alerts.mute`) or an agent over MCP
 * (`watchdesk mcp --allow-write`'s mute_alerts). Mutes from before say console: only it could. */
export const migration010: Migration = {
  version: 10,
  name: 'mute source',
  up(db) {
    db.exec(`ALTER TABLE alert_mutes ADD COLUMN source TEXT NOT NULL DEFAULT 'console';`)
  },
}
