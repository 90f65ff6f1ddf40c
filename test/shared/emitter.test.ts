import { describe, expect, it } from 'vitest'
import { Emitter } from '../../src/shared/emitter'

describe('Emitter', () => {
  it('gives every listener the value when one throws, and reports the throw with the value', () => {
    const errors: [unknown, number][] = []
    const emitter = new Emitter<number>({ onListenerError: (error, value) => errors.push([error, value]) })
    const got: string[] = []
    emitter.event((v) => got.push(`a${v}`))
    emitter.event(() => {
      throw new Error('listener bug')
    })
    emitter.event((v) => got.push(`c${v}`))
    expect(() => emitter.fire(1)).not.toThrow()
    expect(got).toEqual(['a1', 'c1'])
    expect(errors).toEqual([[new Error('listener bug'), 1]])
  })

  it('keeps going when the error reporter itself throws', () => {
    const emitter = new Emitter<number>({
      onListenerError: () => {
        throw new Error('reporter bug')
      },
    })
    const got: number[] = []
    emitter.event(() => {
      throw new Error('listener bug')
    })
    emitter.event((v) => got.push(v))
    expect(() => emitter.fire(7)).not.toThrow()
    expect(got).toEqual([7])
  })

  it('treats the same function subscribed twice as two subscriptions, each disposed on its own', () => {
    const emitter = new Emitter<number>()
    const got: number[] = []
    const listener = (v: number) => got.push(v)
    const first = emitter.event(listener)
    emitter.event(listener)
    emitter.fire(1)
    first.dispose()
    emitter.fire(2)
    expect(got).toEqual([1, 1, 2])
    expect(emitter.listenerCount).toBe(1)
  })

  it('does not call a listener disposed by an earlier listener of the same fire, nor one added during it', () => {
    const emitter = new Emitter<number>()
    const got: string[] = []
    let late: { dispose(): void } | null = null
    emitter.event(() => {
      got.push('first')
      second.dispose()
      late ??= emitter.event(() => got.push('late'))
    })
    const second = emitter.event(() => got.push('second'))
    emitter.fire(1)
    emitter.fire(2)
    expect(got).toEqual(['first', 'first', 'late'])
  })

  it('warns once when listeners pile up past the threshold, and again only after they drained', () => {
    const warnings: number[] = []
    const emitter = new Emitter<void>({ leakWarningThreshold: 3, onLeakWarning: (n) => warnings.push(n) })
    const subscriptions = Array.from({ length: 5 }, () => emitter.event(() => {}))
    expect(warnings).toEqual([4])
    subscriptions.forEach((s) => s.dispose())
    for (let i = 0; i < 4; i++) emitter.event(() => {})
    expect(warnings).toEqual([4, 4])
  })

  it('calls nobody after it is disposed, and a later subscription is inert', () => {
    const emitter = new Emitter<number>()
    const got: number[] = []
    emitter.event((v) => got.push(v))
    emitter.dispose()
    emitter.event((v) => got.push(v)).dispose()
    emitter.fire(1)
    expect(got).toEqual([])
  })
})
