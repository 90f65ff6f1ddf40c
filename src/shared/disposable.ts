/** VS Code's lifecycle model, small: whatever subscribes, starts a timer or opens a stream returns a
 * Disposable, and someone owns it (usually a DisposableStore that is disposed with its owner). */
export interface Disposable {
  dispose(): void
}

/** Wraps a cleanup function; calling dispose more than once runs it once. */
export function toDisposable(cleanup: () => void): Disposable {
  let done = false
  return {
    dispose() {
      if (done) return
      done = true
      cleanup()
    },
  }
}

export const noopDisposable: Disposable = Object.freeze({ dispose() {} })

/** Owns many disposables; disposing the store disposes each of them (newest first), and one that
 * throws does not keep the others alive: the first error is rethrown after all ran. Whatever is
 * added after the store was disposed is disposed at once (a late subscription never leaks). */
export class DisposableStore implements Disposable {
  private readonly items = new Set<Disposable>()
  private disposed = false

  get isDisposed(): boolean {
    return this.disposed
  }

  add<T extends Disposable>(item: T): T {
    if (this.disposed) item.dispose()
    else this.items.add(item)
    return item
  }

  /** Disposes one item now and forgets it. */
  delete(item: Disposable): void {
    if (this.items.delete(item)) item.dispose()
  }

  /** Disposes everything held so far; the store stays usable. */
  clear(): void {
    const items = [...this.items].reverse()
    this.items.clear()
    let first: unknown = null
    for (const item of items) {
      try {
        item.dispose()
      } catch (error) {
        first ??= error
      }
    }
    if (first !== null) throw first
  }

  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    this.clear()
  }
}
