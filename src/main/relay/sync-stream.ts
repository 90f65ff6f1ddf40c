import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../log'
import type { RelayStore, SyncPage } from './store'
import { frameOf } from './change-feed'
import type { ChangeFeed, FeedPage } from './change-feed'
import { presentPage } from './sync-query'
import type { CheckedCursor } from './sync-query'
import type { OpenStream, StreamRegistry } from './sync-limits'
import { createStreamWriter } from '../transport/stream-writer'
import type { StreamWriter } from '../transport/stream-writer'

export const streamPageSize = 1_000

/** What every stream of one sync port shares. */
export interface StreamContext {
  store: RelayStore
  feed: ChangeFeed
  streams: StreamRegistry
  /** Catch-up reads, a few at once (see the server). */
  catchUpRead: <T>(run: () => Promise<T>) => Promise<T>
  heartbeatMs: number
  pollMs: number
  maxBufferedBytes: number
  log: Logger
}

/** Server-sent events: `events` with a page and its next cursor, `heartbeat` when idle,
 * `revoked` before the stream ends for a revoked token. A stream first catches up from the
 * store page by page (each page written once the previous one drained), then joins the change
 * feed; a live stream that falls more than `maxBufferedBytes` behind is cut back to catching
 * up, so nothing buffers without bound. `first` is the page read after `after` while the
 * stream's place was reserved. */
export async function followStream(
  ctx: StreamContext,
  req: IncomingMessage,
  res: ServerResponse,
  after: CheckedCursor,
  first: SyncPage,
  token: string,
  authorization: string,
): Promise<void> {
  const { store, feed } = ctx
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  })
  res.write(`retry: 1000\n\n`)
  const s = openStreamState(ctx, res, after, token, authorization)
  req.once('close', () => s.finish())
  const readPage = async () => {
    const page = await ctx.catchUpRead(() => store.readAfter(s.cursor, streamPageSize))
    if (!page.ok) throw new Error(page.error.message)
    return page.value
  }
  let page = first
  try {
    while (!s.closed) {
      if (page.events.length > 0) {
        const seen = presentPage(page, store.identity, s.shown)
        s.writer.write(frameOf(seen))
        s.cursor = page.next
        s.shown = seen.next
        if (s.writer.needsDrain()) await s.pause(true)
        if (s.closed) break
      }
      if (page.events.length === streamPageSize) {
        page = await readPage()
        continue
      }
      // At the end of what the store holds: join the feed (once it has read this far).
      let joined = feed.join(s.cursor, s.deliver)
      if (!joined) {
        await feed.refresh()
        if (s.closed) break
        joined = feed.join(s.cursor, s.deliver)
      }
      if (!joined) {
        page = await readPage()
        // Nothing new, and the feed does not know this position: wait for a commit (or the poll)
        // before reading again. Never a loop of reads that does not yield (issue 29).
        if (page.events.length === 0) await s.nextCommit()
        continue
      }
      s.membership = joined
      s.entry.live = true
      for (const b of joined.backlog) s.deliver(b)
      // Live until cut (or the end); a backlog already too large was cut above.
      if (s.membership) await s.pause(false)
      if (s.closed) break
      // Cut: let the socket drain, then catch up from where this stream got to.
      if (s.writer.needsDrain()) await s.pause(true)
      page = s.closed ? page : await readPage()
    }
  } catch (error) {
    ctx.log.warn('a sync stream ended on a read error', { error: (error as Error).message })
  } finally {
    s.finish()
  }
}

/** One stream's state: where it reached, its writer, its place in the registry and the feed,
 * and the waits its loop makes. */
interface StreamState {
  /** The store's position this stream reached, and the cursor its client holds there. */
  cursor: string
  shown: string
  closed: boolean
  writer: StreamWriter
  membership: { leave(): void } | null
  entry: OpenStream
  /** Until `finish` or a cut, or also until the socket drained. */
  pause(untilDrain: boolean): Promise<void>
  /** Until a commit notice, `pollMs`, or the stream's end: at most one read per commit or poll. */
  nextCommit(): Promise<void>
  /** A page of the change feed, offered to this live stream. */
  deliver(page: FeedPage): void
  finish(last?: string): void
}

function openStreamState(
  ctx: StreamContext,
  res: ServerResponse,
  after: CheckedCursor,
  token: string,
  authorization: string,
): StreamState {
  let wake: (() => void) | null = null
  const poke = () => {
    const w = wake
    wake = null
    w?.()
  }
  // Bounded: a live frame is refused beyond maxBuffered (the stream is cut to catch-up).
  const writer = createStreamWriter(res, {
    maxBufferedBytes: ctx.maxBufferedBytes,
    heartbeat: () => `event: heartbeat\ndata: ${JSON.stringify({ at: Date.now(), cursor: s.shown })}\n\n`,
    endGraceMs: Math.min(1_000, ctx.heartbeatMs),
  })
  const s: StreamState = {
    cursor: after.position,
    shown: after.text,
    closed: false,
    writer,
    membership: null,
    entry: {
      token,
      buffered: () => writer.buffered(),
      authorization,
      live: false,
      beat: () => writer.beat(),
      revoke: () =>
        s.finish(`event: revoked\ndata: ${JSON.stringify({ error: 'the relay token was revoked' })}\n\n`),
      end: () => s.finish(),
    },
    pause: (untilDrain) =>
      new Promise<void>((resolve) => {
        const done = () => {
          wake = null
          resolve()
        }
        wake = done
        if (untilDrain) void writer.drained().then(() => wake === done && done())
      }),
    async nextCommit() {
      const notice = ctx.store.onCommitted(poke)
      const poll = setTimeout(poke, ctx.pollMs)
      try {
        await s.pause(false)
      } finally {
        notice.dispose()
        clearTimeout(poll)
      }
    },
    deliver(page) {
      if (s.closed || !s.membership) return
      if (!writer.offer(page.frame)) {
        // Too far behind: leave the feed, catch up from the store at this stream's own pace.
        s.membership.leave()
        s.membership = null
        s.entry.live = false
        ctx.streams.noteCut()
        return poke()
      }
      s.cursor = page.page.next
      s.shown = page.shown
    },
    finish(last) {
      if (s.closed) return
      s.closed = true
      s.membership?.leave()
      s.membership = null
      ctx.streams.open.delete(s.entry)
      // A client that stopped reading is cut off shortly after (the writer's end grace).
      writer.end(last)
      poke()
    },
  }
  ctx.streams.open.add(s.entry)
  return s
}
