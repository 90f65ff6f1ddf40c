/** Commits made by other connections, seen from one connection: SQLite's `PRAGMA data_version`
 * changes when another connection (another process's, or another thread's) committed to the file,
 * and never for this connection's own writes. Reading it is a look at a counter in the shared WAL
 * index: no table is read, nothing is locked. What a second process queues (an MCP replay, a
 * `watchdesk events replay` that left rows failing) is seen within `everyMs` this way, without a
 * wake-up channel between the processes. */
export interface CommitWatch {
  stop(): void
}

export function watchOtherCommits(
  dataVersion: () => number,
  onCommitted: () => void,
  options: { everyMs: number; onError?: (error: unknown) => void },
): CommitWatch {
  let last: number | null = null
  let failing = false
  const look = () => {
    let now: number
    try {
      now = dataVersion()
    } catch (error) {
      // Said once, not twice a second, until a look succeeds again.
      if (!failing) options.onError?.(error)
      failing = true
      return
    }
    failing = false
    if (last !== null && now !== last) onCommitted()
    last = now
  }
  look()
  const timer = setInterval(look, options.everyMs)
  // Never what keeps a process (or a worker thread) up.
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
