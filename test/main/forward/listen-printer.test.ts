import { describe, expect, it } from 'vitest'
import { printer } from '../../../src/main/cli/listen'
import type { AttemptReport } from '../../../src/main/forward'
import { resolveTargets } from '../../../src/main/forward/targets'
import type { EventSummary } from '../../../src/shared/contract/events'

const startedAt = Date.parse('2026-11-20T10:00:00Z')
const target = resolveTargets(
  { targets: {}, authorizationBudgetMs: 1500, probeSeconds: 10, maxAgeHours: 24 },
  [{ url: 'http://localhost:3000/hook' }],
  new Map(),
)[0]!

const attempt = (id: string, extra: Partial<AttemptReport> = {}): AttemptReport => ({
  target,
  outboxId: 1,
  queuedAt: startedAt + 1000,
  dueAt: null,
  stopped: false,
  eventId: id,
  type: 'funding.completed',
  attempt: 1,
  status: 200,
  latencyMs: 12,
  error: null,
  state: 'delivered',
  edited: false,
  replay: false,
  ...extra,
})

const summary = (id: string, deliveries = 1): EventSummary => ({
  seq: 1,
  id,
  type: 'funding.completed',
  group: 'payments',
  createdAt: '2026-11-20T10:00:00Z',
  createdAtMs: startedAt,
  receivedAt: startedAt + 1000,
  lastDeliveryAt: startedAt + 1000,
  deliveries,
  endpoint: 'wh_alpha',
  dataId: null,
  fundingLine: null,
  conflict: false,
  source: null,
})

function capture() {
  const out: string[] = []
  return { out, io: { out: (l: string) => out.push(l), err: () => {}, env: {} } }
}

/** The receipt (the screen's batched push) and the attempt (the forward worker) arrive on their
 * own schedules; the lines must not follow them. */
describe('the listen printer', () => {
  it('prints the receive line first when the attempt arrives before the push, and only once', () => {
    const { out, io } = capture()
    const print = printer(io, false, startedAt)
    print.attempt(attempt('evt_a'))
    print.event(summary('evt_a'))
    print.event(summary('evt_a', 2))
    expect(out).toEqual([
      '← funding.completed evt_a',
      '→ 200 POST http://localhost:3000/hook evt_a 12 ms',
      '← funding.completed evt_a (delivery 2)',
    ])
  })

  it('announces no receipt for a replay or an event queued by an earlier run', () => {
    const { out, io } = capture()
    const print = printer(io, false, startedAt)
    print.attempt(attempt('evt_r', { replay: true }))
    print.attempt(attempt('evt_old', { queuedAt: startedAt - 60_000 }))
    expect(out.every((l) => l.startsWith('→ '))).toBe(true)
  })

  it('in JSON, the event object comes before the attempt object', () => {
    const { out, io } = capture()
    const print = printer(io, true, startedAt)
    print.attempt(
      attempt('evt_j', {
        status: 500,
        state: 'failing',
        dueAt: startedAt + 6000,
        error: 'the target answered 500',
      }),
    )
    print.event(summary('evt_j'))
    expect(out.map((l) => JSON.parse(l))).toEqual([
      {
        kind: 'event',
        id: 'evt_j',
        type: 'funding.completed',
        deliveries: 1,
        at: '2026-11-20T10:00:01.000Z',
      },
      expect.objectContaining({
        kind: 'attempt',
        id: 'evt_j',
        status: 500,
        retry_at: '2026-11-20T10:00:06.000Z',
      }),
    ])
  })
})
