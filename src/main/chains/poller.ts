import type { ChainStatus, ChainsSnapshot } from '../../shared/contract/chains'
import { statusRank } from '../../shared/chains/health'
import { ChainMonitor } from './monitor'
import type { Sample } from './monitor'
import type { ChainTarget } from './targets'
import { isRateLimited } from './values'
import { systemPollClock } from '../../shared/clock'
import type { PollClock } from '../../shared/clock'
import type { Disposable } from '../../shared/disposable'

/** Polls every configured chain on its own timer, so a slow or dead chain never delays another,
 * and hands the twelve statuses (and the new samples) to `onRound` after each burst of polls. */

export interface PollerOptions {
  targets: ChainTarget[]
  scrub: (text: string) => string
  onRound?: (snapshot: ChainsSnapshot, samples: Sample[]) => void
  /** Waits this long after a poll for the others of the same round before publishing. */
  coalesceMs?: number
  /** The system clock unless a test moves time itself. */
  clock?: PollClock
}

export interface Poller {
  snapshot(): ChainsSnapshot
  monitor(serviceId: number): ChainMonitor | undefined
  /** One poll of every configured chain, all at once (CLI, bench); independent of the timers. */
  pollRound(): Promise<ChainsSnapshot>
  start(): void
  stop(): void
}

/** The pause before the next poll. A node that fails is polled at most two intervals apart, so
 * its recovery is seen (and its recovery alert sent) within two intervals of it answering again.
 * A rate-limited one (HTTP 429) backs off further: the pause doubles after each refusal in a row,
 * up to a minute (or the interval, if longer). */
export function backoffDelay(intervalMs: number, failures: number, rateLimited = true): number {
  if (failures === 0) return intervalMs
  if (!rateLimited) return 2 * intervalMs
  return Math.min(intervalMs * 2 ** failures, Math.max(60_000, intervalMs))
}

export function sortWorstFirst(chains: ChainStatus[]): ChainStatus[] {
  return [...chains].sort((a, b) => statusRank(a.status) - statusRank(b.status))
}

export function createPoller(options: PollerOptions): Poller {
  const clock = options.clock ?? systemPollClock
  const now = () => clock.now()
  const monitors = options.targets.map((t) => new ChainMonitor(t, options.scrub))
  const timers = new Map<number, Disposable>()
  let pendingSamples: Sample[] = []
  let cancelPublish: Disposable | null = null
  let running = false

  const snapshot = (): ChainsSnapshot => ({
    at: new Date(now()).toISOString(),
    chains: sortWorstFirst(monitors.map((m) => m.status())),
  })

  function publish() {
    cancelPublish = null
    const samples = pendingSamples
    pendingSamples = []
    options.onRound?.(snapshot(), samples)
  }

  function schedulePublish() {
    if (cancelPublish || !running) return
    cancelPublish = clock.after(options.coalesceMs ?? 200, publish)
  }

  async function loop(monitor: ChainMonitor) {
    if (!running) return
    const { sample } = await monitor.poll(now)
    if (!running) return
    if (sample) pendingSamples.push(sample)
    schedulePublish()
    const error = monitor.status().error
    const delay = backoffDelay(monitor.target.intervalMs, monitor.failures, !!error && isRateLimited(error))
    timers.set(
      monitor.target.info.serviceId,
      clock.after(delay, () => void loop(monitor)),
    )
  }

  return {
    snapshot,
    monitor: (serviceId) => monitors.find((m) => m.target.info.serviceId === serviceId),
    async pollRound() {
      const results = await Promise.all(monitors.map((m) => m.poll(now)))
      const samples = results.flatMap((r) => (r.sample ? [r.sample] : []))
      const snap = snapshot()
      options.onRound?.(snap, samples)
      return snap
    },
    start() {
      if (running) return
      running = true
      for (const monitor of monitors) if (monitor.polled) void loop(monitor)
      // The not-configured chains are news too: publish the first snapshot at once.
      options.onRound?.(snapshot(), [])
    },
    stop() {
      running = false
      for (const timer of timers.values()) timer.dispose()
      timers.clear()
      cancelPublish?.dispose()
      cancelPublish = null
      for (const monitor of monitors) monitor.close()
    },
  }
}
