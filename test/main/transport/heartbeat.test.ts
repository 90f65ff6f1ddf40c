import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createPushBus } from '../../../src/main/push'
import { createLogger } from '../../../src/main/log'
import { forwardPushes } from '../../../src/main/transport/ipc'
import { ipcPushChannel } from '../../../src/shared/contract'
import { heartbeatEveryMs } from '../../../src/shared/liveness'

/** A window as forwardPushes sees it: what was sent on which channel, and whether it is gone. */
function windowStandIn() {
  const sent: { channel: string; message: any }[] = []
  let destroyed = false
  let failing = false
  return {
    sent,
    destroy: () => (destroyed = true),
    fail: (on: boolean) => (failing = on),
    target: {
      send(channel: string, message: unknown) {
        if (failing) throw new Error('render frame was disposed')
        sent.push({ channel, message })
      },
      isDestroyed: () => destroyed,
    },
  }
}

const topics = (sent: { message: any }[]) => sent.map((s) => s.message.topic)

describe('IPC push forwarding carries a heartbeat', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('sends a heartbeat at once and every interval, between the pushes, on the push channel', () => {
    const bus = createPushBus({ log: createLogger(() => {}) })
    const win = windowStandIn()
    const forwarding = forwardPushes(bus, win.target)
    expect(topics(win.sent)).toEqual(['app.heartbeat'])
    bus.publish('payments.changed', { at: 1 })
    vi.advanceTimersByTime(heartbeatEveryMs * 2)
    expect(topics(win.sent)).toEqual(['app.heartbeat', 'payments.changed', 'app.heartbeat', 'app.heartbeat'])
    expect(win.sent.every((s) => s.channel === ipcPushChannel)).toBe(true)
    expect(win.sent[0]!.message.payload).toEqual({ at: Date.now() - heartbeatEveryMs * 2 })
    forwarding.dispose()
  })

  it('stops the heartbeat and the pushes when disposed', () => {
    const bus = createPushBus({ log: createLogger(() => {}) })
    const win = windowStandIn()
    forwardPushes(bus, win.target).dispose()
    vi.advanceTimersByTime(heartbeatEveryMs * 5)
    bus.publish('payments.changed', { at: 1 })
    expect(topics(win.sent)).toEqual(['app.heartbeat'])
  })

  it('keeps beating after a send throws, and sends nothing to a destroyed window', () => {
    const bus = createPushBus({ log: createLogger(() => {}) })
    const win = windowStandIn()
    const forwarding = forwardPushes(bus, win.target)
    win.fail(true)
    vi.advanceTimersByTime(heartbeatEveryMs)
    win.fail(false)
    vi.advanceTimersByTime(heartbeatEveryMs)
    expect(topics(win.sent)).toEqual(['app.heartbeat', 'app.heartbeat'])
    win.destroy()
    vi.advanceTimersByTime(heartbeatEveryMs * 3)
    expect(win.sent).toHaveLength(2)
    forwarding.dispose()
  })
})
