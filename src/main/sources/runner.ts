import { SyncCursorRefusal } from '../../shared/contract/sync'
import type { SyncPage } from '../../shared/contract/sync'
import type { SourceStatus } from '../../shared/contract/sources'
import { err } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { AppContext } from '../context'
import { accounts } from '../secrets'
import { catchUp } from './catch-up'
import { fetchPage, followStream } from './client'
import { cursorOf, storageProblem, storePage } from './commit'
import type { PageStoreDeps, StoreOutcome } from './commit'
import { reanchor } from './reanchor'
import { sourceTracker } from './status'
import type { SourceTracker } from './status'

export interface Runner {
  url: string
  status(): SourceStatus
  stop(): Promise<void>
}

export interface RunnerSettings {
  pageSize: number
  idleMs: number
  /** A source's status changed (`urgent`: its state or problem). */
  changed(urgent: boolean): void
}

const firstBackoffMs = 500
const maxBackoffMs = 30_000
const noTokenRetryMs = 5_000

/** One source: fetch its token, catch up, follow the stream; on any interruption wait (doubling
 * from 0.5 s to 30 s, back to 0.5 s after a stream that ran live) and start again from the stored
 * cursor. */
export function startRunner(
  ctx: AppContext,
  deps: PageStoreDeps,
  settings: RunnerSettings,
  source: { name: string; url: string; enabled: boolean },
): Runner {
  const { name, url } = source
  const log = deps.log
  const abort = new AbortController()
  const tracker = sourceTracker(name, url, source.enabled, settings.changed)
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      abort.signal.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    })

  async function run(): Promise<void> {
    let backoff = firstBackoffMs
    let reanchored = false
    while (!abort.signal.aborted) {
      const token = await tokenOf()
      if (!token) {
        await pause(noTokenRetryMs)
        continue
      }
      const wasLive = tracker.liveSince()
      const outcome = await follow(ctx, deps, settings, tracker, { name, url, token }, abort.signal)
      if (abort.signal.aborted) return
      if (tracker.wentLiveSince(wasLive)) backoff = firstBackoffMs
      // The relay's store was replaced or restored: re-anchor and read on at once (a second refusal
      // in a row waits like any failure).
      const refusal = cursorRefusalOf(outcome)
      if (refusal && !reanchored) {
        const anchored = await reanchor(ctx, { name, url, token }, refusal, abort.signal)
        if (anchored.ok) {
          reanchored = true
          tracker.notice(anchored.value)
          log.warn('source cursor re-anchored', { source: name, notice: anchored.value })
          continue
        }
        tracker.set('unreachable', anchored.error.message)
      } else if (!outcome.ok) {
        const state =
          outcome.error.code === 'unauthorized'
            ? 'refused'
            : tracker.state === 'storage'
              ? 'storage'
              : 'unreachable'
        tracker.set(state, outcome.error.message)
        log.warn('source sync interrupted', { source: name, problem: outcome.error.message })
      }
      reanchored = false
      await pause(backoff)
      backoff = Math.min(backoff * 2, maxBackoffMs)
    }
  }

  /** The token from the keychain, or null with the state saying why. */
  async function tokenOf(): Promise<string | null> {
    const got = await ctx.secrets.get(accounts.sourceToken(name))
    const token = got.ok ? got.value : null
    tracker.tokenStored = !!token
    if (!token)
      tracker.set(
        'no-token',
        got.ok
          ? `No token for ${name} in the keychain (source-token:${name}). Set it again: watchdesk sources add ${name} URL.`
          : got.error.message,
      )
    return token
  }

  const running = source.enabled ? run() : Promise.resolve()
  void ctx.secrets
    .get(accounts.sourceToken(name))
    .then((got) => (tracker.tokenStored = got.ok && !!got.value))
  return {
    url,
    status: () => tracker.status(),
    async stop() {
      abort.abort()
      await running
    },
  }
}

/** The relay's refusal of this console's cursor, when that is why `outcome` failed. */
function cursorRefusalOf(outcome: Result<unknown>): SyncCursorRefusal | null {
  if (outcome.ok || outcome.error.code !== 'conflict') return null
  const parsed = SyncCursorRefusal.safeParse(outcome.error.detail)
  return parsed.success ? parsed.data : null
}

/** Catch-up by pages, then the live stream; resolves when either stops, with why. */
async function follow(
  ctx: AppContext,
  deps: PageStoreDeps,
  settings: RunnerSettings,
  tracker: SourceTracker,
  relay: { name: string; url: string; token: string },
  signal: AbortSignal,
): Promise<Result<'ended'>> {
  const { name, url, token } = relay
  const store = async (page: SyncPage): Promise<StoreOutcome> => {
    const stored = await storePage(deps, name, page)
    if (!stored.ok) tracker.set('storage', storageProblem(name, stored.message))
    return stored.ok ? stored : { ok: false, message: tracker.problem ?? stored.message }
  }
  const caught = await catchUp(cursorOf(ctx.db, ctx.storage, name), settings.pageSize, {
    fetch: (after, withRemaining) => fetchPage(url, token, after, settings.pageSize, withRemaining, signal),
    store,
    started: (remaining) => tracker.catchingUp(remaining),
    stored: (count) => tracker.stored(count),
  })
  if (!caught.ok) return caught
  tracker.live()
  const stopStream = new AbortController()
  let storeFailed = false
  const streamed = await followStream(
    url,
    token,
    caught.value,
    async (message) => {
      tracker.contact()
      if (message.kind === 'events') {
        const stored = await store(message.page)
        if (stored.ok) tracker.stored(message.page.events.length)
        else {
          storeFailed = true
          stopStream.abort()
        }
      } else if (message.kind === 'heartbeat') settings.changed(false)
    },
    { signal: AbortSignal.any([signal, stopStream.signal]), idleMs: settings.idleMs },
  )
  if (storeFailed) return err('unavailable', tracker.problem ?? 'storage')
  return streamed.ok ? err('unavailable', `The relay at ${url} closed the stream; reconnecting.`) : streamed
}
