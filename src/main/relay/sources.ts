import type { ListenerStatus } from '../../shared/contract/events'
import type { CommittedEvent } from '../committed'
import type { SourceState, SourceStatus } from '../../shared/contract/sources'
import { groupOf } from '../../shared/events'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import { accounts } from '../secrets'
import { workerCommitter } from '../webhooks'
import type { Committer } from '../webhooks'
import type { CommitHook } from '../db'
import type { EventParams } from '../webhooks'
import { parseTime } from '../webhooks'
import { fetchPage, followStream } from './source-client'
import type { SyncEvent, SyncPage } from './store'

export interface SourcesService {
  list(): SourceStatus[]
  add(name: string, url: string, token: string): Promise<Result<SourceStatus>>
  remove(name: string): Promise<Result<{ removed: boolean }>>
  test(
    target: { name: string } | { url: string; token: string },
  ): Promise<Result<{ ok: boolean; message: string; events: number | null }>>
  listener(name: string): Promise<Result<ListenerStatus>>
  stop(): Promise<void>
}

export interface SourcesOptions {
  /** Events per catch-up page (and per local transaction). */
  pageSize?: number
  /** Without any message for this long (heartbeats come every 10 s), the relay counts as lost. */
  idleMs?: number
  /** Every hook of a synced event's transaction (`commitHooks.sources` in services.ts): the
   * source's own (`syncedEventHooks`) first, then the others (the forward outbox). */
  hooks?: readonly CommitHook[]
}

/** Run after each synced event's upsert, in its transaction: the source of a first delivery, and
 * the source's cursor (so the cursor never runs ahead of what is stored, nor behind by more than
 * what a redelivery deduplicates). */
export const syncedEventHooks = [
  {
    name: 'sources.mark-source',
    sql: 'UPDATE events SET source = @source WHERE seq = @seq AND @inserted = 1',
    params: ['source', 'seq', 'inserted'],
  },
  // Once per page (its last event): a cursor write per event would halve the catch-up speed.
  {
    name: 'sources.save-cursor',
    sql: `INSERT INTO source_cursors (name, cursor, at) SELECT @source, @cursor, @at WHERE @last = 1
   ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, at = excluded.at`,
    params: ['source', 'cursor', 'at', 'last'],
  },
] as const satisfies readonly CommitHook[]
const saveCursorSql = `INSERT INTO source_cursors (name, cursor, at) VALUES (?, ?, ?)
  ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor, at = excluded.at`

type SyncedParams = EventParams & { source: string; cursor: string; last: 0 | 1 }

function paramsOf(source: string, e: SyncEvent, last: boolean): SyncedParams {
  return {
    id: e.id,
    type: e.type,
    grp: groupOf(e.type),
    created_at: e.createdAt,
    created_ms: parseTime(e.createdAt),
    at: e.receivedAt,
    endpoint: e.endpoint ?? source,
    data_id: e.dataId,
    body: Buffer.from(e.body, 'base64'),
    data: e.data,
    // A relay older than this console sends no conflict fields.
    conflicts: e.conflicts ?? 0,
    conflict_body: e.conflictBody ? Buffer.from(e.conflictBody, 'base64') : null,
    source,
    cursor: e.cursor,
    last: last ? 1 : 0,
  }
}

/** The console side of relays: each configured source catches up from its stored cursor in pages
 * (with progress), then follows the live stream; events go into the local SQLite through the
 * commit worker (the listener's transaction, deduplicated on the id), off the main thread, and
 * are pushed to the view and the notifications like local ones. */
export function startSources(ctx: AppContext, options: SourcesOptions = {}): SourcesService {
  const log = ctx.log.child({ part: 'sources' })
  const pageSize = options.pageSize ?? 1_000
  const idleMs = options.idleMs ?? 30_000
  let committer: Committer | null = null
  const committerOf = () =>
    (committer ??= workerCommitter(ctx.db.name, {
      hooks: options.hooks ?? syncedEventHooks,
      onRestart: (failure) => log.warn('sources commit worker stopped; starting it again', { ...failure }),
    }))
  const runners = new Map<string, Runner>()
  let pushTimer: NodeJS.Timeout | null = null
  const changed = (urgent: boolean) => {
    if (urgent) {
      if (pushTimer) clearTimeout(pushTimer)
      pushTimer = null
      return publishStatus()
    }
    pushTimer ??= setTimeout(() => {
      pushTimer = null
      publishStatus()
    }, 250)
  }
  const publishStatus = () => {
    try {
      ctx.push.publish('sources.status', { sources: list() })
    } catch (error) {
      log.error('pushing the sources status failed', { error })
    }
  }
  const list = () => [...runners.values()].map((r) => r.status()).sort((a, b) => a.name.localeCompare(b.name))
  const cursorOf = (name: string): string => {
    try {
      const row = ctx.db.prepare('SELECT cursor FROM source_cursors WHERE name = ?').get(name) as
        { cursor: string } | undefined
      return row?.cursor ?? '0'
    } catch (error) {
      ctx.storage.failed('source cursor read', error)
      return '0'
    }
  }

  interface Runner {
    url: string
    status(): SourceStatus
    stop(): Promise<void>
  }

  function startRunner(name: string, url: string, enabled: boolean): Runner {
    const abort = new AbortController()
    let state: SourceState = enabled ? 'connecting' : 'disabled'
    let problem: string | null = null
    let tokenStored = false
    let synced = 0
    let remaining: number | null = null
    let lastContactAt: number | null = null
    let liveSince: number | null = null
    const set = (next: SourceState, why: string | null = null) => {
      const urgent = next !== state || why !== problem
      state = next
      problem = why
      if (next !== 'live') liveSince = null
      changed(urgent)
    }

    /** Stores one page; false when the local database could not commit (the page is retried). */
    async function store(page: SyncPage): Promise<boolean> {
      if (page.events.length === 0) return true
      const params = page.events.map((e, i) => paramsOf(name, e, i === page.events.length - 1))
      const result = await committerOf().commit(params, [])
      if (!result.ok) {
        ctx.storage.failed('source sync', result.failure)
        set(
          'storage',
          `Events from ${name} cannot be stored (${result.failure.message}). They are fetched again once the database commits.`,
        )
        return false
      }
      ctx.storage.committed()
      const committed: CommittedEvent[] = []
      result.items.forEach((item, i) => {
        if (item.ok)
          committed.push({
            summary: { ...item.summary, source: item.summary.source ?? (item.duplicate ? null : name) },
            duplicate: item.duplicate,
          })
        else
          log.warn('a synced event cannot be stored; skipped', {
            source: name,
            id: params[i]!.id,
            reason: item.reason,
          })
      })
      // The last event could not be stored (it never can): its savepoint took the cursor write
      // with it, so move the cursor here, or the page would be fetched again for ever.
      if (!result.items.at(-1)?.ok) {
        try {
          ctx.db.prepare(saveCursorSql).run(name, page.next, Date.now())
        } catch (error) {
          ctx.storage.failed('source cursor write', error)
        }
      }
      ctx.committed.publish({ origin: { kind: 'source', source: name }, events: committed })
      synced += page.events.length
      lastContactAt = Date.now()
      if (remaining !== null) remaining = Math.max(0, remaining - page.events.length)
      changed(false)
      return true
    }

    const pause = (ms: number) =>
      new Promise<void>((r) => {
        const t = setTimeout(r, ms)
        abort.signal.addEventListener('abort', () => {
          clearTimeout(t)
          r()
        })
      })

    async function run(): Promise<void> {
      let backoff = 500
      while (!abort.signal.aborted) {
        const got = await ctx.secrets.get(accounts.sourceToken(name))
        const token = got.ok ? got.value : null
        tokenStored = !!token
        if (!token) {
          set(
            'no-token',
            got.ok
              ? `No token for ${name} in the keychain (source-token:${name}). Set it again: watchdesk sources add ${name} URL.`
              : got.error.message,
          )
          await pause(5_000)
          continue
        }
        const wasLive = liveSince
        const outcome = await follow(token)
        if (abort.signal.aborted) return
        // A stream that ran live and then dropped reconnects quickly; repeated failures back off.
        if (liveSince !== wasLive) backoff = 500
        if (!outcome.ok) {
          set(
            outcome.error.code === 'unauthorized'
              ? 'refused'
              : state === 'storage'
                ? 'storage'
                : 'unreachable',
            outcome.error.message,
          )
          log.warn('source sync interrupted', { source: name, problem: outcome.error.message })
        }
        await pause(backoff)
        backoff = Math.min(backoff * 2, 30_000)
      }
    }

    /** Catch-up by pages (the next page is fetched while this one commits), then the stream. */
    async function follow(token: string): Promise<Result<'ended'>> {
      let cursor = cursorOf(name)
      let page = await fetchPage(url, token, cursor, pageSize, true, abort.signal)
      if (!page.ok) return page
      remaining = (page.value.remaining ?? 0) + page.value.events.length
      lastContactAt = Date.now()
      if (page.value.events.length > 0) set('catching-up')
      while (page.value.events.length === pageSize) {
        const nextFetch = fetchPage(url, token, page.value.next, pageSize, false, abort.signal)
        if (!(await store(page.value))) return err('unavailable', problem ?? 'storage')
        cursor = page.value.next
        page = await nextFetch
        if (!page.ok) return page
      }
      if (!(await store(page.value))) return err('unavailable', problem ?? 'storage')
      cursor = page.value.next
      remaining = 0
      set('live')
      liveSince = Date.now()
      let stored = true
      const streamed = await followStream(
        url,
        token,
        cursor,
        async (message) => {
          lastContactAt = Date.now()
          if (message.kind === 'events') {
            if (!(await store(message.page))) {
              stored = false
              abortStream.abort()
            }
          } else if (message.kind === 'heartbeat') changed(false)
        },
        { signal: AbortSignal.any([abort.signal, (abortStream = new AbortController()).signal]), idleMs },
      )
      if (!stored) return err('unavailable', problem ?? 'storage')
      return streamed.ok
        ? err('unavailable', `The relay at ${url} closed the stream; reconnecting.`)
        : streamed
    }
    let abortStream = new AbortController()

    const running = enabled ? run() : Promise.resolve()
    void ctx.secrets.get(accounts.sourceToken(name)).then((got) => (tokenStored = got.ok && !!got.value))
    return {
      url,
      status: () => ({ name, url, state, problem, tokenStored, synced, remaining, lastContactAt, liveSince }),
      async stop() {
        abort.abort()
        await running
      },
    }
  }

  /** Brings the runners in line with `sources` in the config (added, removed, URL changed). */
  async function reconcile(): Promise<void> {
    const wanted = ctx.config().sources
    for (const [name, runner] of [...runners]) {
      const want = wanted[name]
      if (
        !want ||
        want.url !== runner.url ||
        (want.enabled === false) !== (runner.status().state === 'disabled')
      ) {
        runners.delete(name)
        await runner.stop()
      }
    }
    for (const [name, source] of Object.entries(wanted))
      if (!runners.has(name)) runners.set(name, startRunner(name, source.url, source.enabled !== false))
    changed(true)
  }
  let reconciling = reconcile()
  const again = () => (reconciling = reconciling.then(reconcile, reconcile))
  const offConfig = ctx.onConfigChange(() => void again())

  const relayOf = async (name: string): Promise<Result<{ url: string; token: string }>> => {
    const source = ctx.config().sources[name]
    if (!source)
      return err(
        'not_found',
        `No source is named ${name}. Add it in Settings → Sources, or: watchdesk sources add ${name} URL.`,
      )
    const got = await ctx.secrets.get(accounts.sourceToken(name))
    if (!got.ok) return got
    if (!got.value)
      return err(
        'not_found',
        `No token for ${name} in the keychain (source-token:${name}). Add the source again with its token.`,
      )
    return ok({ url: source.url, token: got.value })
  }

  return {
    list,
    async add(name, url, token) {
      const stored = await ctx.secrets.set(accounts.sourceToken(name), token)
      if (!stored.ok) return stored
      const saved = ctx.loadedConfig().saved
      const sources = { ...((saved.sources as Record<string, unknown> | undefined) ?? {}), [name]: { url } }
      const written = await ctx.saveConfig({ ...saved, sources })
      if (!written.ok) return written
      await again()
      const runner = runners.get(name)
      return runner ? ok(runner.status()) : err('internal', `The source ${name} did not start.`)
    },
    async remove(name) {
      const saved = ctx.loadedConfig().saved
      const sources = { ...((saved.sources as Record<string, unknown> | undefined) ?? {}) }
      const known = name in sources || runners.has(name)
      delete sources[name]
      const written = await ctx.saveConfig({ ...saved, sources })
      if (!written.ok) return written
      await again()
      await ctx.secrets.delete(accounts.sourceToken(name))
      try {
        ctx.db.prepare('DELETE FROM source_cursors WHERE name = ?').run(name)
      } catch (error) {
        ctx.storage.failed('source cursor delete', error)
      }
      return ok({ removed: known })
    },
    async test(target) {
      const relay = 'name' in target ? await relayOf(target.name) : ok(target)
      if (!relay.ok) return ok({ ok: false, message: relay.error.message, events: null })
      const page = await fetchPage(
        relay.value.url,
        relay.value.token,
        '0',
        1,
        true,
        AbortSignal.timeout(10_000),
      )
      if (!page.ok) return ok({ ok: false, message: page.error.message, events: null })
      const events = page.value.events.length + (page.value.remaining ?? 0)
      return ok({
        ok: true,
        message: `The relay accepts the token and holds ${events.toLocaleString('en-US')} events.`,
        events,
      })
    },
    async listener(name) {
      const relay = await relayOf(name)
      if (!relay.ok) return relay
      try {
        const res = await fetch(`${relay.value.url.replace(/\/+$/, '')}/sync/listener`, {
          headers: { authorization: `Bearer ${relay.value.token}` },
          signal: AbortSignal.timeout(10_000),
        })
        if (!res.ok)
          return err(res.status === 401 ? 'unauthorized' : 'unavailable', `The relay answered ${res.status}.`)
        return ok((await res.json()) as ListenerStatus)
      } catch (error) {
        return err(
          'unavailable',
          `The relay at ${relay.value.url} cannot be reached (${(error as Error).message}).`,
        )
      }
    },
    async stop() {
      offConfig()
      await reconciling
      for (const runner of runners.values()) await runner.stop()
      runners.clear()
      if (pushTimer) clearTimeout(pushTimer)
      await committer?.close()
    },
  }
}
