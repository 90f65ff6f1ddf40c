import { randomUUID } from 'node:crypto'
import pg from 'pg'
import type { Logger } from '../log'

// How relays sharing one database tell each other that something committed: LISTEN/NOTIFY, with
// a poll where notices do not arrive (PgBouncer in transaction mode), and the one notice per
// interval a committing relay sends.

const notifyChannel = 'watchdesk_events'

/** A dedicated connection LISTENing for commits of any relay on this database; reconnects with
 * back-off. After LISTEN it sends itself a probe through the pool: behind PgBouncer in
 * transaction mode the LISTEN lands on a server connection that is handed to others at once and
 * the probe never arrives, so the relay says so and its streams are woken by polling instead. */
export async function listenForCommits(
  config: pg.ClientConfig,
  pool: pg.Pool,
  wake: () => void,
  log?: Logger,
): Promise<{ mode(): 'notify' | 'poll'; close(): Promise<void> }> {
  let client: pg.Client | null = null
  let closed = false
  let delay = 250
  let timer: NodeJS.Timeout | null = null
  const connect = async () => {
    timer = null
    if (closed) return
    const c = new pg.Client(config)
    const probe = `probe:${randomUUID()}`
    let probed = () => {}
    // Set when the probe did not arrive: this connection is closed on purpose, not retried.
    let abandoned = false
    c.on('notification', (n) => {
      if (n.payload === probe) probed()
      else if (!n.payload?.startsWith('probe:')) wake()
    })
    c.on('error', (error) => {
      if (abandoned) return
      log?.warn('the commit notification connection failed; reconnecting', { error: error.message })
      retry(c)
    })
    c.on('end', () => abandoned || retry(c))
    try {
      await c.connect()
      await c.query(`LISTEN ${notifyChannel}`)
      const arrived = new Promise<boolean>((resolve) => {
        probed = () => resolve(true)
        setTimeout(() => resolve(false), probeWaitMs).unref()
      })
      await pool.query('SELECT pg_notify($1, $2)', [notifyChannel, probe])
      if (!(await arrived)) {
        abandoned = true
        log?.info('LISTEN/NOTIFY does not arrive here (PgBouncer in transaction mode?); streams poll instead')
        await c.end().catch(() => {})
        return
      }
      client = c
      delay = 250
      wake()
    } catch {
      retry(c)
    }
  }
  const retry = (c: pg.Client) => {
    if (closed || timer) return
    if (client === c) client = null
    c.end().catch(() => {})
    timer = setTimeout(() => void connect(), delay)
    timer.unref()
    delay = Math.min(delay * 2, 5_000)
  }
  await connect()
  return {
    mode: () => (client ? 'notify' : 'poll'),
    async close() {
      closed = true
      if (timer) clearTimeout(timer)
      await client?.end().catch(() => {})
    },
  }
}

const probeWaitMs = 2_000

/** While `needed()` (streams are open and notifications do not arrive), asks every `everyMs`
 * whether anything committed (the newest seq, and the snapshot bound the cursor reads below) and
 * wakes the streams when it changed: one small query per relay, whatever the number of streams. */
export function pollForCommits(
  pool: pg.Pool,
  wake: () => void,
  needed: () => boolean,
  { everyMs }: { everyMs: number },
): { close(): void } {
  let last = ''
  let busy = false
  const timer = setInterval(() => {
    if (busy || !needed()) return
    busy = true
    pool
      .query<{ seq: number | null; xmin: string }>(
        'SELECT (SELECT max(seq) FROM events) AS seq, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin',
      )
      .then(({ rows }) => {
        const now = `${rows[0]?.seq}/${rows[0]?.xmin}`
        if (now !== last) {
          last = now
          wake()
        }
      })
      // A failing store is reported by the commit path and its probe; the streams' own timer
      // still re-reads meanwhile.
      .catch(() => {})
      .finally(() => (busy = false))
  }, everyMs)
  timer.unref()
  return { close: () => clearInterval(timer) }
}

/** Tells the other relays on this database that something committed, AFTER the commit and in a
 * transaction of its own, at most one every `everyMs` (commits meanwhile are told by one notice
 * at the end of the interval). Not inside the commit: PostgreSQL serialises every committing
 * transaction that has queued a NOTIFY on one database-wide lock held through its WAL flush, so
 * commits that notify cannot share a flush — with six commits in flight per relay that lock was
 * where two relays queued behind each other (docs/benchmarks.md#relay). Not after every commit
 * either: a notice is a transaction of its own that every listening backend and relay handles, and
 * one per group cost PostgreSQL about as much CPU as the group's INSERT; the other relays' change
 * feeds read once per 100 ms window anyway (change-feed.ts, coalesceMs). The first commit after a
 * quiet interval is told at once, so a lone delivery reaches other relays' streams as soon as
 * before. The notice needs no durability: `synchronous_commit` is off for its transaction alone.
 * This relay's own streams are woken in-process, without it. */
export function commitNotifier(
  pool: Pick<pg.Pool, 'query'>,
  everyMs: number,
): { soon(): void; flushed(): Promise<void> } {
  let sending: Promise<void> | null = null
  let timer: NodeJS.Timeout | null = null
  /** A commit not yet told: sent when the interval since the last notice has passed. */
  let owed = false
  let lastAt = -Infinity
  const send = (): void => {
    if (timer) clearTimeout(timer)
    timer = null
    owed = false
    lastAt = performance.now()
    sending = pool
      .query(`SELECT set_config('synchronous_commit', 'off', true), pg_notify('${notifyChannel}', '')`)
      .then(
        () => {},
        // A lost notice only delays other relays' streams until their next timer read; the
        // commit path and its probe report a failing store.
        () => {},
      )
      .finally(() => {
        sending = null
        if (owed) later()
      })
  }
  const later = (): void => {
    if (timer || sending) return
    const wait = lastAt + everyMs - performance.now()
    if (wait <= 0) return send()
    timer = setTimeout(() => {
      timer = null
      if (owed) later()
    }, wait)
    timer.unref()
  }
  return {
    soon() {
      owed = true
      later()
    },
    // On close: what is still owed is told now, not at the end of the interval.
    async flushed() {
      await sending
      if (owed) send()
      await sending
    },
  }
}
