import { realTimer } from './starting-gate'
import type { Timer } from './starting-gate'

export type CloseOutcome =
  { outcome: 'closed' } | { outcome: 'timed-out' } | { outcome: 'failed'; error: Error }

/** Quit must end: the back end gets `ms` to stop its services, flush and release the data dir;
 * a close that throws or hangs is reported, and the app quits anyway. */
export function closeWithin(
  close: () => Promise<void>,
  ms: number,
  timer: Timer = realTimer,
): Promise<CloseOutcome> {
  return new Promise((resolve) => {
    let done = false
    const finish = (outcome: CloseOutcome) => {
      if (done) return
      done = true
      cancel.dispose()
      resolve(outcome)
    }
    const cancel = timer(ms, () => finish({ outcome: 'timed-out' }))
    let closing: Promise<void>
    try {
      closing = close()
    } catch (error) {
      closing = Promise.reject(error)
    }
    closing.then(
      () => finish({ outcome: 'closed' }),
      (error: unknown) =>
        finish({ outcome: 'failed', error: error instanceof Error ? error : new Error(String(error)) }),
    )
  })
}
