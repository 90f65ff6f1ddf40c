import type { ListenerStatus } from '../../shared/contract/events'
import type { SourceStatus } from '../../shared/contract/sources'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import type { CommitHook } from '../db'
import { accounts } from '../secrets'
import { workerCommitter } from '../webhooks'
import type { Committer } from '../webhooks'
import { syncedEventHooks } from './commit'
import { relayListener, testRelay } from './probe'
import { startRunner } from './runner'
import type { Runner } from './runner'
import { statusPush } from './status'
import type { ConditionSource } from '../contribution'
import { sourceConditionSource } from './conditions'

/** Events per catch-up page and per local transaction (the sync API serves up to 5,000). */
const defaultPageSize = 1_000

export interface SourcesService {
  list(): SourceStatus[]
  add(name: string, url: string, token: string): Promise<Result<SourceStatus>>
  remove(name: string): Promise<Result<{ removed: boolean }>>
  test(
    target: { name: string } | { url: string; token: string },
  ): Promise<Result<{ ok: boolean; message: string; events: number | null }>>
  listener(name: string): Promise<Result<ListenerStatus>>
  /** True while a source is catching up (a burst arriving: the event alerts wait for its end). */
  catchingUp(): boolean
  /** The rule "relay source unreachable", for the alerts' status loop. */
  conditions: ConditionSource
  stop(): Promise<void>
}

export interface SourcesOptions {
  /** Events per catch-up page (and per local transaction). */
  pageSize?: number
  /** Without any message for this long (heartbeats come every 10 s), the relay counts as lost. */
  idleMs?: number
  /** Every hook of a synced event's transaction (`commitHooks.sources` in contributions.ts): the
   * source's own (`syncedEventHooks`) first, then the others (the forward outbox). */
  hooks?: readonly CommitHook[]
}

/** The console side of relays: each configured source catches up from its stored cursor in pages
 * (with progress), then follows the live stream; events go into the local SQLite through the
 * commit worker (the listener's transaction, deduplicated on the id), off the main thread, and
 * are pushed to the view and the notifications like local ones. */
export function startSources(ctx: AppContext, options: SourcesOptions = {}): SourcesService {
  const log = ctx.log.child({ part: 'sources' })
  let committer: Committer | null = null
  const committerOf = () =>
    (committer ??= workerCommitter(ctx.db.name, {
      hooks: options.hooks ?? syncedEventHooks,
      onRestart: (failure) => log.warn('sources commit worker stopped; starting it again', { ...failure }),
      log,
    }))
  const runners = new Map<string, Runner>()
  const list = () => [...runners.values()].map((r) => r.status()).sort((a, b) => a.name.localeCompare(b.name))
  const push = statusPush(() => {
    try {
      ctx.push.publish('sources.status', { sources: list() })
    } catch (error) {
      log.error('pushing the sources status failed', { error })
    }
  })
  const settings = {
    pageSize: options.pageSize ?? defaultPageSize,
    idleMs: options.idleMs ?? 30_000,
    changed: push.changed,
  }
  const deps = { db: ctx.db, storage: ctx.storage, committed: ctx.committed, log, committer: committerOf }
  const startOne = (name: string, url: string, enabled: boolean) =>
    startRunner(ctx, deps, settings, { name, url, enabled })

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
      if (!runners.has(name)) runners.set(name, startOne(name, source.url, source.enabled !== false))
    push.changed(true)
  }
  let reconciling = reconcile()
  const again = () => (reconciling = reconciling.then(reconcile, reconcile))
  const offConfig = ctx.onConfigChange(() => void again())

  return {
    list,
    catchingUp: () => list().some((s) => s.state === 'catching-up'),
    conditions: sourceConditionSource(list),
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
    test: (target) => testRelay(ctx, target),
    listener: (name) => relayListener(ctx, name),
    async stop() {
      offConfig.dispose()
      await reconciling
      for (const runner of runners.values()) await runner.stop()
      runners.clear()
      push.stop()
      await committer?.close()
    },
  }
}
