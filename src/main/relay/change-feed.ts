import type { Disposable } from '../../shared/disposable'
import { Emitter } from '../../shared/emitter'
import type { Logger } from '../log'
import type { RelayStore, SyncEvent, SyncPage } from './store'

/** A page as every live stream sends it, serialised once for all of them. */
export interface FeedPage {
  page: SyncPage
  /** The server-sent-event frame of `page` as clients see it (`present`), encoded once (a hundred
   * streams write the same bytes). */
  frame: Buffer
  /** The `next` cursor as clients see it. */
  shown: string
}

export interface FeedSettings {
  pageSize: number
  /** Events kept after the last read, so a stream that just caught up joins without a read. */
  keepEvents: number
  /** Re-reads at least this often while someone follows (a commit of another relay on the same
   * database whose notice was lost). */
  pollMs: number
  /** A commit notice is read this long after it arrives, with every notice meanwhile: at 250
   * deliveries/s one read, and one write per stream, every 100 ms rather than per commit. */
  coalesceMs: number
  /** A page as clients see it (their cursors carry the store's identity, sync-query.ts). */
  present?: (page: SyncPage) => SyncPage
}

export interface ChangeFeed {
  /** Follows the feed from `cursor`: the pages after it the feed already holds (to send first),
   * then every new page through `deliver`. Null when the feed does not reach back to `cursor`
   * (the stream catches up from the store, then joins again). */
  join(cursor: string, deliver: (page: FeedPage) => void): { backlog: FeedPage[]; leave(): void } | null
  /** Resolves once a read that started after this call is done (a stream that caught up waits for
   * the feed to reach its cursor). */
  refresh(): Promise<void>
  /** Store reads so far (tests: once per commit, however many follow). */
  readonly reads: number
  readonly followers: number
  close(): void
}

export const frameOf = (page: SyncPage): string =>
  `id: ${page.next}\nevent: events\ndata: ${JSON.stringify(page)}\n\n`

/** One change feed per relay: after each commit notice the committed events are read once, and
 * every live stream gets that same page (and the same frame). The feed starts at the cursor of the
 * first stream that joins and stops reading when the last one leaves. */
export function createChangeFeed(store: RelayStore, settings: FeedSettings, log: Logger): ChangeFeed {
  // One follower that throws (a bug in a stream) must not keep the page from the others.
  const followers = new Emitter<FeedPage>({
    onListenerError: (error) => log.error('a change-feed follower threw; the others got the page', { error }),
    // Every live stream is a follower: hundreds are normal (sync.maxStreams bounds them).
    leakWarningThreshold: 100_000,
  })
  /** The cursor before `held[0]`; null while nobody follows. */
  let anchor: string | null = null
  let held: SyncEvent[] = []
  /** cursor → absolute position (`base` is the absolute position of `held[0]`). */
  let position = new Map<string, number>()
  let base = 0
  let reads = 0
  let reading: Promise<void> | null = null
  let again = false
  let closed = false
  const present = settings.present ?? ((page: SyncPage) => page)
  const feedPage = (page: SyncPage): FeedPage => {
    const shown = present(page)
    return { page, frame: Buffer.from(frameOf(shown)), shown: shown.next }
  }

  const tail = () => held.at(-1)?.cursor ?? anchor!

  const reset = () => {
    off?.dispose()
    off = null
    anchor = null
    held = []
    position = new Map()
    base = 0
  }

  const keep = (events: SyncEvent[]) => {
    events.forEach((e, i) => position.set(e.cursor, base + held.length + i))
    held.push(...events)
    // Trimmed in chunks (amortised): at most 1.5 × keepEvents are held.
    if (held.length <= settings.keepEvents * 1.5) return
    const drop = held.length - settings.keepEvents
    for (const e of held.slice(0, drop)) position.delete(e.cursor)
    anchor = held[drop - 1]!.cursor
    held = held.slice(drop)
    base += drop
  }

  async function readToEnd(): Promise<void> {
    while (anchor !== null && !closed) {
      reads++
      const page = await store.readAfter(tail(), settings.pageSize)
      if (!page.ok) throw new Error(page.error.message)
      if (anchor === null || page.value.events.length === 0) return
      keep(page.value.events)
      const out = feedPage(page.value)
      followers.fire(out)
      if (page.value.events.length < settings.pageSize) return
    }
  }

  /** One read at a time; a notice during a read makes one more read after it (not one each). */
  const read = (): Promise<void> => {
    if (reading) {
      again = true
      return reading
    }
    again = false
    reading = readToEnd()
      .catch((error: unknown) => {
        // The streams stay; the next notice or poll reads again.
        log.warn('the change feed cannot read the store', { error: (error as Error).message })
      })
      .finally(() => {
        reading = null
        if (again && anchor !== null) void read()
      })
    return reading
  }

  let soon: NodeJS.Timeout | null = null
  const noticed = () => {
    if (anchor === null || soon) return
    soon = setTimeout(() => {
      soon = null
      if (anchor !== null) void read()
    }, settings.coalesceMs)
  }
  // Subscribed only while someone follows: a store that polls for commits (PgBouncer) polls only
  // while it has subscribers.
  let off: Disposable | null = null
  const poll = setInterval(() => {
    if (anchor !== null) void read()
  }, settings.pollMs)
  poll.unref()

  return {
    join(cursor, deliver) {
      if (closed) return null
      let from: number
      if (anchor === null) {
        anchor = cursor
        from = 0
        off = store.onCommitted(noticed)
      } else if (cursor === anchor) from = 0
      else {
        const at = position.get(cursor)
        if (at === undefined) return null
        from = at - base + 1
      }
      const backlog: FeedPage[] = []
      for (let i = from; i < held.length; i += settings.pageSize) {
        const events = held.slice(i, i + settings.pageSize)
        backlog.push(feedPage({ events, next: events.at(-1)!.cursor }))
      }
      const following = followers.event(deliver)
      return {
        backlog,
        leave() {
          following.dispose()
          if (followers.listenerCount === 0) reset()
        },
      }
    },
    async refresh() {
      if (anchor === null) return
      // A read already running may have started before the caller's own read ended: one more.
      if (reading) {
        again = true
        await reading
        if (reading) return reading
      }
      await read()
    },
    get reads() {
      return reads
    },
    get followers() {
      return followers.listenerCount
    },
    close() {
      closed = true
      clearInterval(poll)
      if (soon) clearTimeout(soon)
      followers.dispose()
      reset()
    },
  }
}
