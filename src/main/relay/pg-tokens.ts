import type pg from 'pg'
import { err, ok } from '../../shared/result'
import type { RelayStore, TokenScope } from './store'

/** The relay tokens on PostgreSQL: written on the commit pool, looked up on the read pool (a
 * lookup per sync request). */
export function postgresTokens(pool: pg.Pool, reads: pg.Pool): RelayStore['tokens'] {
  return {
    async create(name, hash, at, scope) {
      const { rowCount } = await pool.query(
        `INSERT INTO relay_tokens (name, hash, created_at, scope) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at,
           scope = excluded.scope, revoked_at = NULL
         WHERE relay_tokens.revoked_at IS NOT NULL`,
        [name, hash, at, scope],
      )
      return rowCount === 1
        ? ok(undefined)
        : err('conflict', `A token named ${name} exists. Revoke it first, or pick another name.`)
    },
    async list() {
      const { rows } = await reads.query<{
        name: string
        created_at: number
        revoked_at: number | null
        scope: TokenScope
      }>('SELECT name, created_at, revoked_at, scope FROM relay_tokens ORDER BY name')
      return rows.map((r) => ({
        name: r.name,
        createdAt: r.created_at,
        revokedAt: r.revoked_at,
        scope: r.scope,
      }))
    },
    async revoke(name, at) {
      const { rowCount } = await pool.query(
        'UPDATE relay_tokens SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL',
        [name, at],
      )
      return rowCount === 1
    },
    async lookup(hash) {
      const { rows } = await reads.query<{ name: string; scope: TokenScope }>(
        'SELECT name, scope FROM relay_tokens WHERE hash = $1 AND revoked_at IS NULL',
        [hash],
      )
      return rows[0] ?? null
    },
  }
}
