import { Emitter } from '../../shared/emitter'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { maskUrlSecrets, urlSecretValues } from '../../shared/mask'
import { redactFromLogs } from '../log'
import type { Logger } from '../log'
import {
  defaultCommitDeadlineMs,
  openPool,
  pgConfigOf,
  pgStoreIdentity,
  postgresFix,
  preparedSchema,
  safePostgresUrl,
} from './pg-connection'
import { postgresCommitter, postgresGrouping } from './pg-committer'
import type { PostgresGrouping } from './pg-committer'
import { listenForCommits, pollForCommits } from './pg-notify'
import { postgresReads } from './pg-reads'
import { postgresRetentionTarget } from './pg-retention'
import { postgresTokens } from './pg-tokens'
import type { RelayStore, Wakeups } from './store'

// The PostgreSQL store in parts: connections and schema (pg-connection.ts), the read side
// (pg-reads.ts, pg-tokens.ts), group commit (pg-committer.ts), commit notices between relays
// (pg-notify.ts). Here they are opened and put together as one RelayStore.
export {
  defaultCommitDeadlineMs,
  migratePostgresUrl,
  pgConfigOf,
  postgresFix,
  safePostgresUrl,
  sessionSettings,
} from './pg-connection'
export { parsePgCursor } from './pg-reads'
export { commitNotifier } from './pg-notify'
export { postgresCommitter, postgresGrouping } from './pg-committer'
export type { NamedStatements, PostgresGrouping } from './pg-committer'

export interface PgStoreOptions {
  /** Transactions committing at once; requests arriving meanwhile are joined into the next one. */
  parallelCommits?: number
  /** Connections of the read pool (sync API, tokens, `events --store`): a pool of their own, so
   * followers never take a connection a commit needs. */
  readConnections?: number
  /** A delivery whose commit has not finished by then is answered 503 and the storage status says
   * "stalled" (a frozen server, a held lock, a full WAL disk…). Also PostgreSQL's
   * statement_timeout; lock_timeout is a quarter of it (at most 1 s). */
  commitDeadlineMs?: number
  log?: Logger
  /** At most one commit notice to the other relays per this many ms (commitNotifier). */
  noticeEveryMs?: number
  /** How often streams' wake-up poll asks whether anything committed when LISTEN/NOTIFY does not
   * arrive (PgBouncer in transaction mode). */
  wakePollMs?: number
  /** How long ingest may hold a group for one transaction (postgresGrouping); null: a group goes
   * as soon as the committer takes it (the bench's paired comparison). */
  grouping?: PostgresGrouping | null
}

/** A shared store several relays write at once. The database enforces one row per event id
 * (unique key, INSERT … ON CONFLICT), so the same delivery to two relays is stored once; each
 * relay answers 200 only after its own COMMIT. */
export async function openPostgresStore(
  url: string,
  options: PgStoreOptions = {},
): Promise<Result<RelayStore>> {
  // Whatever a library quotes of the URL, a log line or the output never carries its secrets.
  for (const secret of urlSecretValues(url)) redactFromLogs(secret)
  const parallel = options.parallelCommits ?? 6
  const deadlineMs = options.commitDeadlineMs ?? defaultCommitDeadlineMs
  const config = pgConfigOf(url)
  if (!config.ok) return err(config.error.code, maskUrlSecrets(config.error.message))
  // Commits (and the probe, and the commit notice) on one pool, every read on another: a hundred
  // followers catching up never make a delivery wait for a connection.
  const pool = openPool(config.value, { max: parallel + 2, deadlineMs, log: options.log })
  // A read of a frozen server fails (and its connection is dropped) rather than hang a sync
  // request; commits keep their deadline instead (a transaction's connection must not be reused
  // while its statement may still run).
  const reads = openPool(config.value, {
    max: options.readConnections ?? 4,
    deadlineMs,
    queryTimeoutMs: deadlineMs * 2,
    log: options.log,
  })
  const schema = await preparedSchema(pool)
  if (!schema.ok) {
    await Promise.all([pool.end().catch(() => {}), reads.end().catch(() => {})])
    return err(
      'unavailable',
      `PostgreSQL at ${safePostgresUrl(url)} cannot be used (${maskUrlSecrets(schema.error.message)}). ${schema.error.fix}`,
    )
  }
  let identity: string
  try {
    identity = await pgStoreIdentity(pool)
  } catch (error) {
    await Promise.all([pool.end().catch(() => {}), reads.end().catch(() => {})])
    return err(
      'unavailable',
      `PostgreSQL at ${safePostgresUrl(url)} cannot be used (${maskUrlSecrets((error as Error).message)}). ${postgresFix(error)}`,
    )
  }
  // A throwing waker must not turn a durable commit into a failed one.
  const committed = new Emitter<void>({
    onListenerError: (error) => options.log?.error('a commit notice listener threw', { error }),
  })
  const wake = () => committed.fire()
  const listen = await listenForCommits(config.value, reads, wake, options.log)
  const poll = pollForCommits(reads, wake, () => committed.listenerCount > 0 && listen.mode() !== 'notify', {
    everyMs: options.wakePollMs ?? 250,
  })
  const committer = postgresCommitter(
    pool,
    parallel,
    wake,
    deadlineMs,
    options.noticeEveryMs ?? 50,
    options.log,
    options.grouping === undefined ? postgresGrouping : options.grouping,
  )

  return ok({
    kind: 'postgres',
    where: safePostgresUrl(url),
    wakeups: (): Wakeups =>
      listen.mode() === 'notify'
        ? { mode: 'notify', detail: 'LISTEN/NOTIFY' }
        : {
            mode: 'poll',
            detail: `polling every ${options.wakePollMs ?? 250} ms (LISTEN/NOTIFY does not arrive here, e.g. PgBouncer in transaction mode)`,
          },
    committer,
    retention: postgresRetentionTarget(pool),
    identity,
    onCommitted: committed.event,
    tokens: postgresTokens(pool, reads),
    ...postgresReads(reads),
    async close() {
      await committer.close()
      poll.close()
      await listen.close()
      await Promise.all([pool.end(), reads.end()])
    },
  })
}
