import { createClient } from '../../src/renderer/src/api/client'
import type { Client, Clock, PushSink, Transport } from '../../src/renderer/src/api/client'
import type { MethodName, PushMessage } from '../../src/shared/contract'
import type { EventSummary } from '../../src/shared/contract/events'
import { toDisposable } from '../../src/shared/disposable'
import type { Disposable } from '../../src/shared/disposable'
import { ok } from '../../src/shared/result'
import type { Result } from '../../src/shared/result'

/** A clock the test moves by hand: `advance` runs the due ticks in order, so no test waits. */
export function manualClock(start = Date.parse('2026-03-01T12:00:00Z')) {
  let now = start
  const timers = new Set<{ every: number; next: number; tick: () => void }>()
  const clock: Clock = {
    now: () => now,
    every(ms, tick) {
      const timer = { every: ms, next: now + ms, tick }
      timers.add(timer)
      return toDisposable(() => timers.delete(timer))
    },
  }
  return {
    clock,
    now: () => now,
    advance(ms: number) {
      const end = now + ms
      for (;;) {
        const due = [...timers].filter((t) => t.next <= end).sort((a, b) => a.next - b.next)[0]
        if (!due) break
        now = due.next
        due.next += due.every
        due.tick()
      }
      now = end
    },
    timerCount: () => timers.size,
  }
}

/** A transport whose push stream and answers the test drives. */
export function scriptedTransport(answer: (name: MethodName, request: any) => unknown = () => ({})) {
  let sink: PushSink | null = null
  const restarts: string[] = []
  const calls: { name: MethodName; request: any }[] = []
  let open = false
  const transport: Transport = {
    kind: 'http',
    async call(name, request) {
      calls.push({ name, request })
      const value = await answer(name, request)
      return (value && typeof value === 'object' && 'ok' in value ? value : ok(value)) as Result<unknown>
    },
    openPushes(s) {
      sink = s
      open = true
      return {
        dispose: () => {
          open = false
          sink = null
        },
        restart: (why) => void restarts.push(why),
      }
    },
  }
  const theSink = () => {
    if (!sink) throw new Error('the push stream is not open')
    return sink
  }
  return {
    transport,
    restarts,
    calls,
    isOpen: () => open,
    push: (message: PushMessage) => theSink().message(message),
    beat: (at = 0) => theSink().message({ topic: 'app.heartbeat', payload: { at } }),
    opened: () => theSink().opened(),
    dropped: (why: string) => theSink().dropped(why),
  }
}

export function connectedClient(answer?: (name: MethodName, request: any) => unknown): {
  client: Client
  script: ReturnType<typeof scriptedTransport>
  time: ReturnType<typeof manualClock>
  connection: Disposable
} {
  const script = scriptedTransport(answer)
  const time = manualClock()
  const client = createClient(script.transport, time.clock)
  const connection = client.connect()
  return { client, script, time, connection }
}

let seq = 0
export function summary(overrides: Partial<EventSummary> & { id: string }): EventSummary {
  seq++
  return {
    seq,
    type: 'funding.completed',
    group: 'payments',
    createdAt: '2026-03-01T12:00:00Z',
    createdAtMs: Date.parse('2026-03-01T12:00:00Z'),
    receivedAt: Date.parse('2026-03-01T12:00:00Z') + seq,
    lastDeliveryAt: Date.parse('2026-03-01T12:00:00Z') + seq,
    deliveries: 1,
    endpoint: 'wh_1',
    dataId: null,
    fundingLine: null,
    ...overrides,
  } as EventSummary
}
