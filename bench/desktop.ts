// `npm run bench:desktop`: what the desktop shell adds to every push, as ratios against a baseline
// measured in the same run (alternating rounds, medians):
//  1. an `events.appended` batch (150 events, the listener's batch size at 1,000 events/s) through
//     the shell's attention path (payload parsing, notification choice, unseen count, tray state)
//     vs the structured clone Electron already makes of the same batch to send it to the window;
//  2. a `chains.status` snapshot of the twelve chains through the same path vs its structured clone.
// Ratio below 1: the shell's work per push costs less than forwarding that push to the page.
import { createAttention } from '../src/main/desktop/attention'
import { silentLogger } from '../src/main/log'
import { defaultNotificationPatterns } from '../src/shared/events'
import { chain } from '../test/main/desktop/chains-fixture'
import { median } from './stats'

const types = [
  'funding.completed',
  'payout.completed',
  'card.authorization.request',
  'payout.failed',
  'card.created',
]
const batch = {
  events: Array.from({ length: 150 }, (_, i) => ({
    seq: i,
    id: `evt_${i.toString().padStart(24, '0')}`,
    type: types[i % types.length]!,
    group: 'payments' as const,
    createdAt: '2026-11-22T13:00:00Z',
    createdAtMs: 1_795_000_000_000,
    receivedAt: 1_795_000_000_100 + i,
    lastDeliveryAt: 1_795_000_000_100 + i,
    deliveries: 1,
    endpoint: 'wh_bench',
    dataId: `fund_${i}`,
    fundingLine: i % 5 === 0 ? '1,000 USD → 998.75 USDC' : null,
  })),
  omitted: 0,
}
const statuses = ['healthy', 'healthy', 'lagging', 'down', 'stalled', 'healthy'] as const
const snapshot = (round: number) => ({
  at: new Date(0).toISOString(),
  chains: Array.from({ length: 12 }, (_, i) =>
    chain(i + 1, `Chain ${i + 1}`, statuses[(i + round) % statuses.length]!),
  ),
})

const attention = createAttention({
  patterns: () => defaultNotificationPatterns,
  windowFocused: () => false,
  showTray: () => {},
  notify: () => {},
  log: silentLogger,
})

let sink = 0

function compare(name: string, baseline: () => void, subject: () => void, iterations: number): void {
  const base: number[] = []
  const measured: number[] = []
  for (let i = 0; i < iterations / 4; i++) {
    baseline()
    subject()
  }
  for (let round = 0; round < 9; round++) {
    const pairs = [
      [baseline, base],
      [subject, measured],
    ] as const
    for (const [fn, out] of round % 2 === 0 ? pairs : [...pairs].reverse()) {
      const t0 = performance.now()
      for (let i = 0; i < iterations; i++) fn()
      out.push(((performance.now() - t0) * 1000) / iterations)
    }
  }
  const b = median(base)
  const m = median(measured)
  console.log(`${name}: ${m.toFixed(1)} µs vs baseline ${b.toFixed(1)} µs → ratio ${(m / b).toFixed(2)}`)
}

compare(
  'events.appended (150 events): attention vs structuredClone of the batch',
  () => void (sink += structuredClone(batch).events.length),
  () => attention.handle({ topic: 'events.appended', payload: batch }),
  400,
)
let round = 0
const snapshots = Array.from({ length: 6 }, (_, i) => snapshot(i))
compare(
  'chains.status (12 chains): attention vs structuredClone of the snapshot',
  () => void (sink += structuredClone(snapshots[round++ % 6]!).chains.length),
  () => attention.handle({ topic: 'chains.status', payload: snapshots[round++ % 6]! }),
  4000,
)
if (sink < 0) console.log(sink)
