import type { ServerResponse } from 'node:http'

/** The one way a long-lived response (server-sent events) is written: the console's push stream
 * (`/api/push`) and the relay's sync stream (`/sync/stream`). A subscriber that stops reading makes
 * Node buffer every write in the process; this writer never lets that pass `maxBufferedBytes`:
 * `offer` refuses a frame once the socket holds more than that unsent, and the owner then ends the
 * stream (the console's renderer reconnects and reloads its state) or falls back to reading at the
 * subscriber's own pace (the relay's catch-up from its store). It also owns the heartbeat. */
export interface StreamWriterOptions {
  /** Unsent bytes beyond which `offer` refuses (the bound is this plus one frame). */
  maxBufferedBytes: number
  /** The frame sent when the stream has been quiet; omitted: no heartbeat. */
  heartbeat?: () => string
  /** Sends `heartbeat` on this interval (when `heartbeatWhenQuietOnly`, only after an interval
   * without any other frame); omitted: the owner calls `beat()` itself (the relay checks the token
   * on the same tick). */
  heartbeatMs?: number
  heartbeatWhenQuietOnly?: boolean
  /** After `end()`, a subscriber that does not read the rest is cut off after this long. */
  endGraceMs?: number
}

export interface StreamWriter {
  /** Writes `frame` unless more than `maxBufferedBytes` are still unsent: then nothing is written
   * and it answers false (the subscriber fell behind). A frame in pieces (`pushFrame`) is written
   * whole, in one system call. */
  offer(frame: string | Buffer | readonly string[]): boolean
  /** Writes `frame` whatever is buffered, for an owner that paces itself with `drained()` (one
   * page at a time, as the relay's catch-up does). */
  write(frame: string | Buffer): void
  /** Bytes written and not yet sent. */
  buffered(): number
  /** True when the last write filled the socket's buffer: wait for `drained()` before the next. */
  needsDrain(): boolean
  /** Resolves when the socket drained, or the stream closed. */
  drained(): Promise<void>
  /** Sends a heartbeat when nothing else was written since the previous `beat()`. */
  beat(): void
  /** Ends the stream (after `last`, if given); destroys it when the subscriber does not take the
   * rest within `endGraceMs`. Idempotent. */
  end(last?: string): void
  /** True once ended or the subscriber went away. */
  closed(): boolean
  /** Called once, when the stream ends for any reason. */
  onClose(listener: () => void): void
}

export const streamWriterDefaults = {
  /** The relay's sync stream has capped here since round two; a page of 1,000 events is ~300 kB,
   * one frame beyond this. The console's push messages are small (statuses, summaries). */
  maxBufferedBytes: 256 * 1024,
  endGraceMs: 1_000,
} as const

export function createStreamWriter(res: ServerResponse, options: StreamWriterOptions): StreamWriter {
  const endGraceMs = options.endGraceMs ?? streamWriterDefaults.endGraceMs
  let wroteSinceBeat = false
  let closed = false
  const closeListeners: (() => void)[] = []
  let timer: NodeJS.Timeout | null = null

  const markClosed = () => {
    if (closed) return
    closed = true
    if (timer) clearInterval(timer)
    timer = null
    for (const listener of closeListeners.splice(0)) listener()
  }
  res.once('close', markClosed)

  // Ended elsewhere counts as closed too (a server closing ends its responses): a write after the
  // end is an 'error' event on the response, uncaught when nobody listens.
  const gone = () => closed || res.destroyed || res.writableEnded
  const write = (frame: string | Buffer) => {
    if (gone()) return
    wroteSinceBeat = true
    res.write(frame)
  }
  const beat = () => {
    if (!options.heartbeat || closed) return
    if (options.heartbeatWhenQuietOnly !== false && wroteSinceBeat) {
      wroteSinceBeat = false
      return
    }
    // A heartbeat is refused like any frame: a subscriber that stopped reading gets none either.
    if (res.writableLength <= options.maxBufferedBytes) write(options.heartbeat())
    wroteSinceBeat = false
  }
  if (options.heartbeat && options.heartbeatMs !== undefined) {
    timer = setInterval(beat, options.heartbeatMs)
    timer.unref()
  }

  return {
    offer(frame) {
      if (gone()) return false
      if (res.writableLength > options.maxBufferedBytes) return false
      if (typeof frame === 'string' || Buffer.isBuffer(frame)) write(frame)
      else {
        // Corked: the pieces leave together, and nothing (a heartbeat) can come between them.
        res.cork()
        for (const piece of frame) write(piece)
        res.uncork()
      }
      return true
    },
    write,
    buffered: () => res.writableLength,
    needsDrain: () => res.writableNeedDrain,
    drained: () =>
      new Promise<void>((resolve) => {
        if (closed || !res.writableNeedDrain) return resolve()
        const done = () => {
          res.off('drain', done)
          res.off('close', done)
          resolve()
        }
        res.once('drain', done)
        res.once('close', done)
      }),
    beat,
    end(last) {
      if (closed) return
      if (timer) clearInterval(timer)
      timer = null
      if (!res.destroyed) res.end(last)
      // A subscriber that stopped reading would keep the socket (and what it holds) open.
      if (!res.writableFinished) setTimeout(() => res.destroy(), endGraceMs).unref()
      markClosed()
    },
    closed: () => closed,
    onClose(listener) {
      if (closed) listener()
      else closeListeners.push(listener)
    },
  }
}
