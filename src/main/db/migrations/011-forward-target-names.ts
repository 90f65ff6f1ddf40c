import type { Migration } from './migration'

/** An ad-hoc `--forward-to` target used to be named `url:<the whole URL>`, so a URL's userinfo and
 * query (`http://user:PASSWORD@host/h?token=…`) were stored in the forward tables and travelled
 * into backups and `store copy`. Names are now the URL without userinfo, query and fragment (issue
 * 30); this renames what older versions stored. Written out here, not imported, so that this
 * migration stays what it is when the naming code changes. */
export const migration011: Migration = {
  version: 11,
  name: 'forward target names without credentials',
  up(db) {
    const names = db
      .prepare(
        `SELECT target FROM forward_outbox WHERE target LIKE 'url:%'
         UNION SELECT target FROM forward_attempts WHERE target LIKE 'url:%'
         UNION SELECT target FROM forward_routes WHERE target LIKE 'url:%'`,
      )
      .pluck()
      .all() as string[]
    // Overwrite the old names' bytes as the rows change, not only unlink them: a credential must
    // not stay readable in the file's free space (copied by a file-level backup).
    const secureDelete = db.pragma('secure_delete', { simple: true }) as number
    db.pragma('secure_delete = ON')
    for (const name of names) {
      const renamed = nameWithoutCredentials(name)
      if (renamed === name) continue
      for (const table of ['forward_outbox', 'forward_attempts'])
        db.prepare(`UPDATE ${table} SET target = ? WHERE target = ?`).run(renamed, name)
      // Routes are keyed by (target, pattern): two old names may now be one.
      db.prepare('UPDATE OR IGNORE forward_routes SET target = ? WHERE target = ?').run(renamed, name)
      db.prepare('DELETE FROM forward_routes WHERE target = ?').run(name)
    }
    db.pragma(`secure_delete = ${secureDelete}`)
  },
}

/** The same text as the naming code gives (`url:` + the URL as written, without `user:pass@`,
 * `?query` and `#fragment`), so a restart with the same `--forward-to` finds its queue. */
function nameWithoutCredentials(name: string): string {
  const url = name.slice('url:'.length)
  return `url:${url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, '$1').replace(/[?#].*$/s, '')}`
}
