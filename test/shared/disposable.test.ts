import { describe, expect, it } from 'vitest'
import { DisposableStore, toDisposable } from '../../src/shared/disposable'

describe('Disposable and DisposableStore', () => {
  it('runs a cleanup once however often it is disposed', () => {
    let runs = 0
    const d = toDisposable(() => runs++)
    d.dispose()
    d.dispose()
    expect(runs).toBe(1)
  })

  it('disposes everything it owns, newest first, and keeps going past one that throws', () => {
    const order: string[] = []
    const store = new DisposableStore()
    store.add(toDisposable(() => order.push('first')))
    store.add(
      toDisposable(() => {
        order.push('throws')
        throw new Error('broken cleanup')
      }),
    )
    store.add(toDisposable(() => order.push('last')))
    expect(() => store.dispose()).toThrow('broken cleanup')
    expect(order).toEqual(['last', 'throws', 'first'])
    expect(store.isDisposed).toBe(true)
  })

  it('disposes at once what is added after it was disposed', () => {
    const store = new DisposableStore()
    store.dispose()
    let runs = 0
    store.add(toDisposable(() => runs++))
    expect(runs).toBe(1)
  })

  it('clear disposes what it holds and stays usable; delete disposes one item', () => {
    const store = new DisposableStore()
    let a = 0
    let b = 0
    store.add(toDisposable(() => a++))
    store.clear()
    const second = store.add(toDisposable(() => b++))
    store.delete(second)
    store.delete(second)
    expect([a, b, store.isDisposed]).toEqual([1, 1, false])
  })
})
