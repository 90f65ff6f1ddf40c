import { describe, expect, it } from 'vitest'
import { createPushBus } from '../../src/main/push'
import { createLogger } from '../../src/main/log'
import type { PushMessage } from '../../src/shared/contract'

function capturingLog() {
  const lines: string[] = []
  return { log: createLogger((l) => lines.push(l), 'debug'), lines }
}

describe('push bus', () => {
  it('delivers to every listener when one of them throws, and logs the throw', () => {
    const { log, lines } = capturingLog()
    const bus = createPushBus({ log })
    const before: PushMessage[] = []
    const after: PushMessage[] = []
    bus.subscribe((m) => before.push(m))
    bus.subscribe(() => {
      throw new Error('listener bug')
    })
    bus.subscribe((m) => after.push(m))
    expect(() => bus.publish('payments.changed', { at: 1 })).not.toThrow()
    bus.publish('payments.changed', { at: 2 })
    expect(before.map((m) => m.payload)).toEqual([{ at: 1 }, { at: 2 }])
    expect(after.map((m) => m.payload)).toEqual([{ at: 1 }, { at: 2 }])
    expect(lines).toHaveLength(2)
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'error',
      topic: 'payments.changed',
      error: { message: 'listener bug' },
    })
  })

  it('stops delivering to a subscription once its owner disposes it', () => {
    const bus = createPushBus({ log: capturingLog().log })
    const got: number[] = []
    const listener = (m: PushMessage) => got.push((m.payload as { at: number }).at)
    const first = bus.subscribe(listener)
    bus.subscribe(listener)
    bus.publish('payments.changed', { at: 1 })
    first.dispose()
    bus.publish('payments.changed', { at: 2 })
    expect(got).toEqual([1, 1, 2])
  })

  it('lets a listener unsubscribe itself while a message is being delivered', () => {
    const bus = createPushBus({ log: capturingLog().log })
    const got: string[] = []
    const self = bus.subscribe(() => {
      got.push('self')
      self.dispose()
    })
    bus.subscribe(() => got.push('other'))
    bus.publish('payments.changed', { at: 1 })
    bus.publish('payments.changed', { at: 2 })
    expect(got).toEqual(['self', 'other', 'other'])
  })
})
