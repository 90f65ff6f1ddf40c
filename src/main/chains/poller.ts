import { isDeepStrictEqual } from 'node:util'
import type { ChainStatus, ChainsSnapshot } from '../../shared/contract/chains'
import { statusRank } from '../../shared/chains/health'
import { ChainMonitor } from './monitor'
import type { Sample } from './monitor'
import type { ChainTarget } from './targets'
import { isRateLimited } from './values'
import { systemPollClock } from '../../shared/clock'
import type { PollClock } from '../../shared/clock'
import type { Disposable } from '../../shared/disposable'
import type { TimeReferences } from '../../shared/time-references'

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
  /** The clock guard's port: block stamps and the gateway's Date out, the correction in. */
  timeRefs?: TimeReferences
}

export interface Poller {
  snapshot(): ChainsSnapshot
  monitor(serviceId: number): ChainMonitor | undefined
  /** One poll of every configured chain, all at once (CLI, bench); independent of the timers. */
  pollRound(): Promise<ChainsSnapshot>
  /** Applies a config change to the chains it concerns, keeping their state (open incidents stay
   * open, debounce and windows go on); a chain whose target is unchanged is not touched. A chain
   * being polled takes the change when that poll is answered. Returns the changed service ids. */
  reconfigure(targets: ChainTarget[], scrub: (text: string) => string): number[]
  start(): void
  stop(): void
}

/** The pause before the next poll. A node that fails is polled at most two intervals apart, so
 * its recovery is seen (and its recovery alert sent) within two intervals of it answering again.
 * A rate-limited one (HTTP 429) backs off further: the pause doubles after each refusal in a row,
 * up to a minute (or the interval, if longer). */
/** The wait before a chain's next poll: its interval, or the back-off its failures call for. */
function nextDelay(intervalMs: number, monitor: ChainMonitor): number {
  const error = monitor.status().error
  return backoffDelay(intervalMs, monitor.failures, !!error && isRateLimited(error))
}

export function backoffDelay(intervalMs: number, failures: number, rateLimited = true): number {
  if (failures === 0) return intervalMs
  if (!rateLimited) return 2 * intervalMs
  return Math.min(intervalMs * 2 ** failures, Math.max(60_000, intervalMs))
}

export function sortWorstFirst(chains: ChainStatus[]): ChainStatus[] {
  return [...chains].sort((a, b) => statusRank(a.status) - statusRank(b.status))
}

/** One chain's place in the poller: its monitor, its timer, and a config change that waits for
 * the poll under way to finish (that poll's answer belongs to the monitor that asked). */
interface Slot {
  monitor: ChainMonitor
  timer: Disposable | null
  inFlight: boolean
  next: ChainTarget | null
  lastPollAt: number | null
}

export function createPoller(options: PollerOptions): Poller {
  const clock = options.clock ?? systemPollClock
  const now = () => clock.now()
  let scrub = options.scrub
  const slots: Slot[] = options.targets.map((t) => ({
    monitor: new ChainMonitor(t, scrub, undefined, options.timeRefs),
    timer: null,
    inFlight: false,
    next: null,
    lastPollAt: null,
  }))
  let pendingSamples: Sample[] = []
  let cancelPublish: Disposable | null = null
  let running = false

  const snapshot = (): ChainsSnapshot => ({
    at: new Date(now()).toISOString(),
    chains: sortWorstFirst(slots.map((s) => s.monitor.status())),
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

  function schedule(slot: Slot, delay: number) {
    slot.timer?.dispose()
    slot.timer = clock.after(delay, () => void loop(slot))
  }

  async function loop(slot: Slot) {
    slot.timer = null
    if (!running || !slot.monitor.polled) return
    slot.inFlight = true
    const { sample } = await slot.monitor.poll(now)
    slot.inFlight = false
    slot.lastPollAt = now()
    if (!running) return
    if (sample) pendingSamples.push(sample)
    schedulePublish()
    if (slot.next) return replace(slot, slot.next)
    schedule(slot, nextDelay(slot.monitor.target.intervalMs, slot.monitor))
  }

  /** Swaps the chain's monitor for one over `target` that carries its state, and polls on the new
   * settings: a new node at once, the same node when its (new) interval since the last poll is up. */
  function replace(slot: Slot, target: ChainTarget) {
    slot.next = null
    const previous = slot.monitor
    const successor = new ChainMonitor(target, scrub, previous)
    previous.closeExcept(successor)
    slot.monitor = successor
    slot.timer?.dispose()
    slot.timer = null
    if (!running || !successor.polled) return
    const newNode = !previous.polled || previous.target.url !== target.url
    if (newNode || slot.lastPollAt === null) return schedule(slot, 0)
    const due = slot.lastPollAt + nextDelay(target.intervalMs, successor)
    schedule(slot, Math.max(0, due - now()))
  }

  return {
    snapshot,
    monitor: (serviceId) => slots.find((s) => s.monitor.target.info.serviceId === serviceId)?.monitor,
    async pollRound() {
      const results = await Promise.all(slots.map((s) => s.monitor.poll(now)))
      const samples = results.flatMap((r) => (r.sample ? [r.sample] : []))
      const snap = snapshot()
      options.onRound?.(snap, samples)
      return snap
    },
    reconfigure(targets, nextScrub) {
      const scrubChanged = nextScrub !== scrub
      scrub = nextScrub
      const changed: number[] = []
      for (const target of targets) {
        const slot = slots.find((s) => s.monitor.target.info.serviceId === target.info.serviceId)
        if (!slot) continue
        const wanted = slot.next ?? slot.monitor.target
        const sameScrub = !scrubChanged || !slot.monitor.polled
        if (sameScrub && isDeepStrictEqual(wanted, target)) continue
        changed.push(target.info.serviceId)
        if (slot.inFlight) slot.next = target
        else replace(slot, target)
      }
      if (changed.length > 0 && running) schedulePublish()
      return changed
    },
    start() {
      if (running) return
      running = true
      for (const slot of slots) if (slot.monitor.polled) void loop(slot)
      // The not-configured chains are news too: publish the first snapshot at once.
      options.onRound?.(snapshot(), [])
    },
    stop() {
      running = false
      for (const slot of slots) {
        slot.timer?.dispose()
        slot.timer = null
        slot.next = null
        slot.monitor.close()
      }
      cancelPublish?.dispose()
      cancelPublish = null
    },
  }
}
