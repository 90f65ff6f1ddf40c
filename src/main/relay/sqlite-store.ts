import { joinRetentionRules, readRetentionState, sqliteRetentionTarget } from '../db/retention'
import type { RetentionRules } from '../db/retention'
import { Emitter } from '../../shared/emitter'
import type { Database } from 'better-sqlite3'
import type { CommitHook } from '../db'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { openDatabase, readSnapshot } from '../db'
import type { Committer } from '../webhooks'
import { workerCommitter } from '../webhooks'
import { contribution as webhooks, createEventStore } from '../webhooks'
import type { Logger } from '../log'
import { newStoreIdentity, syncColumns, toSyncEvent } from './store'
import type { RelayStore, SyncRow, TokenScope } from './store'

/** The embedded store: one SQLite file written by one relay (its commit worker). SQLite runs one
 * write transaction at a time and `seq` grows with each, so commit order is `seq` order and the
 * cursor is simply the last `seq` read. */

/** Run in the commit transaction after each event's upsert: a redelivery with a different body (a
 * conflict) moves the event to the end of the commit order, so a console that already read it
 * reads it again, with its conflict. A relay's own database has nothing pointing at `seq`; for a
 * data dir that a console used before (`relay` defaults to the data dir's watchdesk.db), the
 * composer adds the hooks of what points at it (the forward rows: `commitHooks.relay`). The
 * console's own listener never runs this. */
export const resyncOnConflictHooks: readonly CommitHook[] = [
  {
    name: 'relay.resync-on-conflict',
    sql: 'UPDATE events SET seq = (SELECT max(seq) FROM events) + 1 WHERE seq = @seq AND @conflicted = 1',
    params: ['seq', 'conflicted'],
    onlyWhen: 'conflicted',
  },
]

export function openSqliteRelayStore(
  file: string,
  options: {
    log?: Logger
    committer?: Committer
    /** What retention removes and keeps: every capability's rules where a console used the data
     * dir (the composer passes them); the webhooks capability's own otherwise. */
    retention?: Required<RetentionRules>
    /** The commit hooks: the resync, then what follows it (`commitHooks.relay`); the resync alone
     * by default. */
    hooks?: readonly CommitHook[]
    /** The connection as the store reads through it (the store's own by default): a test wraps it
     * to land another connection's commit between two reads of one answer. */
    readThrough?: (db: Database) => Database
  } = {},
): Result<RelayStore> {
  const opened = openDatabase(file)
  if (!opened.ok) return opened
  const db: Database = options.readThrough ? options.readThrough(opened.value) : opened.value
  const events = createEventStore(db)
  // A throwing waker must not turn a durable commit into a failed one.
  const committed = new Emitter<void>({
    onListenerError: (error) => options.log?.error('a commit notice listener threw', { error }),
  })
  const inner =
    options.committer ??
    workerCommitter(db.name, {
      hooks: options.hooks ?? resyncOnConflictHooks,
      onRestart: (failure) => options.log?.warn('commit worker stopped; starting it again', { ...failure }),
      log: options.log,
    })
  const committer: Committer = {
    async commit(batch, rejections) {
      const result = await inner.commit(batch, rejections)
      if (result.ok && batch.length > 0) committed.fire()
      return result
    },
    alive: (run, at) => inner.alive(run, at),
    close: () => inner.close(),
  }
  const readPage = db.prepare(
    `SELECT ${syncColumns} FROM events WHERE seq > ? AND source IS NULL ORDER BY seq LIMIT ?`,
  )
  const identity = storeIdentity(db)
  const idAt = db.prepare('SELECT id FROM events WHERE seq = ?').pluck()
  const newestSeq = db.prepare('SELECT max(seq) FROM events').pluck()
  const countAfter = db.prepare('SELECT count(*) AS n FROM events WHERE seq > ? AND source IS NULL')
  const statement = {
    create: db.prepare(
      `INSERT INTO relay_tokens (name, hash, created_at, scope) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET hash = excluded.hash, created_at = excluded.created_at,
         scope = excluded.scope, revoked_at = NULL
       WHERE relay_tokens.revoked_at IS NOT NULL`,
    ),
    list: db.prepare(
      'SELECT name, created_at AS createdAt, revoked_at AS revokedAt, scope FROM relay_tokens ORDER BY name',
    ),
    revoke: db.prepare('UPDATE relay_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL'),
    lookup: db.prepare('SELECT name, scope FROM relay_tokens WHERE hash = ? AND revoked_at IS NULL'),
  }
  return ok({
    kind: 'sqlite',
    where: `sqlite:${file}`,
    // One relay writes a SQLite file: its own commits wake its streams directly.
    wakeups: () => ({ mode: 'in-process', detail: 'in-process (one relay per SQLite file)' }),
    committer,
    retention: {
      ...sqliteRetentionTarget(
        options.retention ?? joinRetentionRules([webhooks.retention]),
        async (statements) => {
          const done = await inner.prune!(statements)
          return done.ok ? done : { ok: false, message: done.failure.message }
        },
      ),
      // A relay holds events and rejections; forward and alerts tables stay empty there.
      kinds: ['events', 'rejections'],
      load: async () => readRetentionState(db),
    },
    async readAfter(after, limit, withRemaining) {
      const from = sqlitePosition(after)
      if (from === null) return err('bad_request', notASqliteCursor(after))
      // One snapshot: the page and the count after it (a conflict's resync moves an event of the
      // page to the end; counted apart, it would be in both).
      return readSnapshot(db, () => {
        const rows = readPage.all(from, limit) as SyncRow[]
        const out = rows.map((r) => toSyncEvent(r, String(r.seq)))
        const next = out.at(-1)?.cursor ?? String(from)
        return ok({
          events: out,
          next,
          ...(withRemaining ? { remaining: (countAfter.get(Number(next)) as { n: number }).n } : {}),
        })
      })
    },
    identity,
    async positionFacts(position) {
      const at = sqlitePosition(position)
      if (at === null) return err('bad_request', notASqliteCursor(position))
      // Both from one snapshot, as the PostgreSQL store's one statement.
      return readSnapshot(db, () => {
        const newest = (newestSeq.get() as number | null) ?? 0
        return ok({ idAt: (idAt.get(at) as string | undefined) ?? null, pastEnd: at > newest })
      })
    },
    async positionOfNewest(ids) {
      if (ids.length === 0) return null
      const row = db
        .prepare(
          `SELECT id, seq FROM events WHERE source IS NULL AND id IN (${ids.map(() => '?').join(', ')}) ORDER BY seq DESC LIMIT 1`,
        )
        .get(...ids) as { id: string; seq: number } | undefined
      return row ? { id: row.id, position: String(row.seq) } : null
    },
    onCommitted: committed.event,
    tokens: {
      async create(name, hash, at, scope) {
        return statement.create.run(name, hash, at, scope).changes === 1
          ? ok(undefined)
          : err('conflict', `A token named ${name} exists. Revoke it first, or pick another name.`)
      },
      list: async () =>
        statement.list.all() as {
          name: string
          createdAt: number
          revokedAt: number | null
          scope: TokenScope
        }[],
      revoke: async (name, at) => statement.revoke.run(at, name).changes === 1,
      lookup: async (hash) =>
        (statement.lookup.get(hash) as { name: string; scope: TokenScope } | undefined) ?? null,
    },
    recentRejections: async (limit) => events.recentRejections(limit),
    list: async (filter, after, limit) => events.list(filter, after, limit),
    get: async (id) => events.get(id),
    async close() {
      await committer.close()
      db.close()
    },
  })
}

/** A SQLite position: the last `seq` read (empty = the start). */
function sqlitePosition(text: string): number | null {
  return text === '' ? 0 : /^\d{1,18}$/.test(text) ? Number(text) : null
}

const notASqliteCursor = (text: string) =>
  `"${text}" is not a cursor of this relay (SQLite positions are whole numbers): read from after=0, or re-anchor with /sync/anchor.`

/** The store's identity, made once and kept in `meta` (`relay.store`). */
function storeIdentity(db: Database): string {
  db.prepare("INSERT INTO meta (key, value) VALUES ('relay.store', ?) ON CONFLICT (key) DO NOTHING").run(
    newStoreIdentity(),
  )
  return db.prepare("SELECT value FROM meta WHERE key = 'relay.store'").pluck().get() as string
}
