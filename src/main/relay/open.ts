import { resolve } from 'node:path'
import { err } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import type { RetentionRules } from '../db/retention'
import type { CommitHook } from '../db'
import { maskUrlSecrets } from '../../shared/mask'
import { openSqliteRelayStore } from './sqlite-store'
import type { RelayStore } from './store'

export type StoreUrl = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string }

/** `sqlite:PATH`, a path ending in .db, or `postgres://…` / `postgresql://…`. */
export function parseStoreUrl(text: string): Result<StoreUrl> {
  if (/^postgres(ql)?:\/\//.test(text)) return { ok: true, value: { kind: 'postgres', url: text } }
  const path = text.startsWith('sqlite:')
    ? text.slice('sqlite:'.length)
    : /\.(db|sqlite3?)$/.test(text)
      ? text
      : null
  if (path) return { ok: true, value: { kind: 'sqlite', file: resolve(path) } }
  return err(
    'bad_request',
    `--store takes sqlite:PATH or postgres://user@host/db, not "${maskUrlSecrets(text)}".`,
  )
}

/** The PostgreSQL client is loaded only for a PostgreSQL store: the desktop app and every other
 * command start without it. */
export async function openRelayStore(
  url: StoreUrl,
  log?: Logger,
  options: {
    commitDeadlineMs?: number
    /** A SQLite store's retention rules and commit hooks (the composer's, for a console's data dir). */
    retention?: Required<RetentionRules>
    hooks?: readonly CommitHook[]
  } = {},
): Promise<Result<RelayStore>> {
  if (url.kind === 'sqlite')
    return openSqliteRelayStore(url.file, { log, retention: options.retention, hooks: options.hooks })
  const { openPostgresStore } = await import('./pg-store')
  return openPostgresStore(url.url, { log, commitDeadlineMs: options.commitDeadlineMs })
}

/** `relay migrate` on a PostgreSQL store, with the client loaded for it. */
export async function migratePostgresUrl(
  url: string,
): ReturnType<typeof import('./pg-store').migratePostgresUrl> {
  return (await import('./pg-store')).migratePostgresUrl(url)
}

/** `store copy`, with the PostgreSQL client loaded for it. */
export async function copySqliteToPostgres(
  ...args: Parameters<typeof import('./store-copy').copySqliteToPostgres>
): ReturnType<typeof import('./store-copy').copySqliteToPostgres> {
  return (await import('./store-copy')).copySqliteToPostgres(...args)
}

/** `store copy` back from PostgreSQL, with the PostgreSQL client loaded for it. */
export async function copyPostgresToSqlite(
  ...args: Parameters<typeof import('./store-copy').copyPostgresToSqlite>
): ReturnType<typeof import('./store-copy').copyPostgresToSqlite> {
  return (await import('./store-copy')).copyPostgresToSqlite(...args)
}
