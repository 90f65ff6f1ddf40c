import type { SourceState, SourceStatus } from '../../shared/contract/sources'

/** Tells the views that a source's status changed: at once when its state or problem changed
 * (`urgent`), else at most every `delayMs` (progress during a catch-up is not pushed per page). */
export interface StatusPush {
  changed(urgent: boolean): void
  stop(): void
}

export function statusPush(publish: () => void, delayMs = 250): StatusPush {
  let timer: NodeJS.Timeout | null = null
  return {
    changed(urgent) {
      if (urgent) {
        if (timer) clearTimeout(timer)
        timer = null
        return publish()
      }
      timer ??= setTimeout(() => {
        timer = null
        publish()
      }, delayMs)
    },
    stop() {
      if (timer) clearTimeout(timer)
      timer = null
    },
  }
}

/** Where one source stands, with its progress: the one writer of a runner's status. */
export interface SourceTracker {
  readonly state: SourceState
  readonly problem: string | null
  tokenStored: boolean
  /** A new state (and its cause and fix when it is a problem). */
  set(next: SourceState, why?: string | null): void
  /** The relay answered (a page, a heartbeat). */
  contact(): void
  /** A catch-up begins with this many events to fetch (what the relay counted, plus its page). */
  catchingUp(remaining: number): void
  /** `count` events were stored (a page of the catch-up or of the stream). */
  stored(count: number): void
  /** The catch-up ended: the live stream follows. */
  live(): void
  /** Something to say once though nothing is wrong now (a re-anchored cursor); kept until the next. */
  notice(text: string): void
  /** Whether the stream went live since `since` (a stream that ran live then dropped). */
  wentLiveSince(since: number | null): boolean
  liveSince(): number | null
  status(): SourceStatus
}

export function sourceTracker(
  name: string,
  url: string,
  enabled: boolean,
  changed: (urgent: boolean) => void,
): SourceTracker {
  let state: SourceState = enabled ? 'connecting' : 'disabled'
  let problem: string | null = null
  let synced = 0
  let remaining: number | null = null
  let lastContactAt: number | null = null
  let liveSince: number | null = null
  let notice: string | null = null
  const tracker: SourceTracker = {
    get state() {
      return state
    },
    get problem() {
      return problem
    },
    tokenStored: false,
    set(next, why = null) {
      const urgent = next !== state || why !== problem
      state = next
      problem = why
      if (next !== 'live') liveSince = null
      changed(urgent)
    },
    contact() {
      lastContactAt = Date.now()
    },
    catchingUp(count) {
      remaining = count
      lastContactAt = Date.now()
      if (count > 0) tracker.set('catching-up')
    },
    stored(count) {
      synced += count
      lastContactAt = Date.now()
      if (remaining !== null) remaining = Math.max(0, remaining - count)
      changed(false)
    },
    live() {
      remaining = 0
      liveSince = Date.now()
      tracker.set('live')
    },
    notice(text) {
      notice = text
      changed(true)
    },
    wentLiveSince: (since) => liveSince !== since,
    liveSince: () => liveSince,
    status: () => ({
      name,
      url,
      state,
      problem,
      tokenStored: tracker.tokenStored,
      synced,
      remaining,
      lastContactAt,
      liveSince,
      notice,
    }),
  }
  return tracker
}
