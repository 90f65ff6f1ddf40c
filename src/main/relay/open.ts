import { resolve } from 'node:path'
import { err } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'
import { maskUrlSecrets } from '../../shared/mask'
import { openPostgresStore } from './pg-store'
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

export async function openRelayStore(
  url: StoreUrl,
  log?: Logger,
  options: { commitDeadlineMs?: number } = {},
): Promise<Result<RelayStore>> {
  return url.kind === 'postgres'
    ? openPostgresStore(url.url, { log, ...options })
    : openSqliteRelayStore(url.file, { log })
}
