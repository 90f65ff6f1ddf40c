import type { Migration } from './migration'

/** What a relay token opens (read | metrics | admin). Tokens made before scopes existed could read
 * the sync API and /metrics: 'read' keeps exactly that. */
export const migration008: Migration = {
  version: 8,
  name: 'relay token scopes',
  up(db) {
    db.exec(`
      ALTER TABLE relay_tokens ADD COLUMN scope TEXT NOT NULL DEFAULT 'read'
        CHECK (scope IN ('read', 'metrics', 'admin'));
    `)
  },
}
