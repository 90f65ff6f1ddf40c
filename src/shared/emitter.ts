import { toDisposable } from './disposable'
import type { Disposable } from './disposable'

/** What an Emitter does when a listener throws or too many listeners pile up. src/shared does no
 * I/O, so the owner says where these go (its logger); without them they go to console.error. */
export interface EmitterOptions<T> {
  /** Called with a listener's error; the other listeners still get the value, and `fire` returns
   * normally, so a broken subscriber never fails the write, timer or request that fired. */
  onListenerError?: (error: unknown, value: T) => void
  /** A listener count that suggests a leak (subscriptions nobody disposes): said once, when crossed. */
  leakWarningThreshold?: number
  onLeakWarning?: (listeners: number) => void
}

const defaultLeakWarningThreshold = 200

/** One fan-out of values to subscribers, in the shape of VS Code's `Emitter` (base/common/event.ts):
 * `event(listener)` subscribes and returns a Disposable its owner keeps; `fire(value)` calls every
 * listener subscribed when it started, synchronously and in subscription order. A listener that
 * throws is reported and skipped, never allowed to stop the others. */
export class Emitter<T> implements Disposable {
  private readonly listeners = new Set<{ listener: (value: T) => void }>()
  private leakWarned = false
  private disposed = false

  constructor(private readonly options: EmitterOptions<T> = {}) {}

  /** Subscribes; the same function subscribed twice is two subscriptions. */
  readonly event = (listener: (value: T) => void): Disposable => {
    if (this.disposed) return toDisposable(() => {})
    // A wrapper per subscription: disposing one never removes another of the same function.
    const entry = { listener }
    this.listeners.add(entry)
    this.checkLeak()
    return toDisposable(() => {
      this.listeners.delete(entry)
      if (this.listeners.size < this.leakThreshold() / 2) this.leakWarned = false
    })
  }

  fire(value: T): void {
    // A snapshot: a listener subscribed while this fire runs gets the next value, not this one; one
    // disposed meanwhile is not called again (dispose means no more calls).
    for (const entry of [...this.listeners]) {
      if (!this.listeners.has(entry)) continue
      try {
        entry.listener(value)
      } catch (error) {
        this.reportListenerError(error, value)
      }
    }
  }

  get listenerCount(): number {
    return this.listeners.size
  }

  /** Forgets every listener; later subscriptions are no-ops. */
  dispose(): void {
    this.disposed = true
    this.listeners.clear()
  }

  private reportListenerError(error: unknown, value: T): void {
    const report = this.options.onListenerError
    if (!report) {
      console.error('an event listener threw; the others still got the value', error)
      return
    }
    try {
      report(error, value)
    } catch {
      // The reporter itself failed: the other listeners matter more than the report.
    }
  }

  private leakThreshold(): number {
    return this.options.leakWarningThreshold ?? defaultLeakWarningThreshold
  }

  private checkLeak(): void {
    if (this.leakWarned || this.listeners.size <= this.leakThreshold()) return
    this.leakWarned = true
    const warn =
      this.options.onLeakWarning ??
      ((count: number) =>
        console.warn(`${count} listeners on one emitter: a subscription is probably never disposed`))
    warn(this.listeners.size)
  }
}
