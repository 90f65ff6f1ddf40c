import type { ClockStatus } from '../../shared/contract/clock'
import type { Disposable } from '../../shared/disposable'
import { DisposableStore, toDisposable } from '../../shared/disposable'
import { Emitter } from '../../shared/emitter'
import type { TimeReading, TimeReferences } from '../../shared/time-references'
import type { AppContext } from '../context'
import { ClockEstimator } from './estimate'
import { statusOf } from './status'
import { writeClockStatus } from './file'

export { ClockEstimator, median } from './estimate'
export { describe as describeClock, ntpFix, signedSeconds, aheadOrBehind } from './words'
export { statusOf } from './status'
export { clockProbe } from './doctor'
export { clockGauges } from './metrics'
export type { GaugeSpec } from './metrics'
export { readClockStatus, clockStatusFileName } from './file'
export type { ClockProbe } from './doctor'

/** The clock guard (issue 32.3): estimates this machine's clock offset from the readings the
 * chains and the payments client report (through `references`, joined by the composer) and from
 * webhooks' created_at on the committed-events channel; says so when it is off, and hands the
 * chains the correction so no chain reads lagging because of the workstation's clock. */
export interface ClockGuard {
  /** For the chains (block stamps, the gateway's Date) and the payments client (the API's Date). */
  references: TimeReferences
  status(): ClockStatus
  onChange(listener: (status: ClockStatus) => void): Disposable
  stop(): Promise<void>
}

export interface ClockGuardOptions {
  /** The local clock as the chains' polls read it (the poll clock in tests). */
  now?: () => number
  /** Readings coalesce for this long before the estimate is refreshed. */
  settleMs?: number
  /** The estimate is also refreshed this often with no reading (default 30 s): readings leave
   * their window when every reference stops (the network drops), and the offset they gave must
   * not stay shown, nor applied to the chains, as if confirmed now. */
  expireCheckMs?: number
}

/** Worth telling the screen: another state, or the offset moved by a second or more. */
const changed = (a: ClockStatus, b: ClockStatus) =>
  a.state !== b.state ||
  a.correctionSeconds !== b.correctionSeconds ||
  a.thresholdSeconds !== b.thresholdSeconds ||
  Math.round(a.offsetSeconds ?? NaN) !== Math.round(b.offsetSeconds ?? NaN) ||
  a.references.some((r, i) => r.counted !== b.references[i]?.counted)

export function startClockGuard(ctx: AppContext, options: ClockGuardOptions = {}): ClockGuard {
  const now = options.now ?? Date.now
  const estimator = new ClockEstimator({ thresholdSeconds: ctx.config().clock.offsetWarnSeconds })
  const changes = new Emitter<ClockStatus>({
    onListenerError: (error) => ctx.log.error('a clock status listener failed', { error }),
  })
  const log = ctx.log.child({ capability: 'clock' })
  let current = statusOf(estimator.estimate(now()), now())
  let pending: NodeJS.Timeout | null = null
  const owned = new DisposableStore()

  function refresh() {
    pending = null
    const next = statusOf(estimator.estimate(now()), now())
    const news = changed(current, next)
    if (news && next.state !== current.state)
      log[next.state === 'off' ? 'warn' : 'info']('clock', { state: next.state, message: next.message })
    current = next
    if (!news) return
    persist(next)
    ctx.push.publish('clock.status', next)
    changes.fire(next)
  }
  // One write at a time, the newest last: a write under way is followed by the latest status.
  let writing: Promise<void> | null = null
  let queued: ClockStatus | null = null
  const persist = (status: ClockStatus) => {
    queued = status
    writing ??= (async () => {
      while (queued) {
        const next = queued
        queued = null
        await writeClockStatus(ctx.dataDir, next).catch((error: unknown) =>
          log.warn('the clock status could not be written for other processes (watchdesk mcp)', { error }),
        )
      }
      writing = null
    })()
  }
  const soon = () => {
    pending ??= setTimeout(refresh, options.settleMs ?? 250)
  }

  owned.add(
    ctx.committed.subscribe((batch) => {
      // A relay's events were received by the relay's clock, not this one.
      if (batch.origin.kind !== 'listener') return
      for (const { summary, duplicate } of batch.events) {
        if (duplicate || summary.createdAtMs === null) continue
        estimator.observeWebhook(summary.receivedAt, summary.createdAtMs)
      }
      soon()
    }),
  )
  owned.add(
    ctx.onConfigChange((config) => {
      estimator.thresholdSeconds = config.clock.offsetWarnSeconds
      soon()
    }),
  )
  const expiring = setInterval(() => pending ?? refresh(), options.expireCheckMs ?? 30_000)
  expiring.unref()
  owned.add(toDisposable(() => (clearInterval(expiring), pending && clearTimeout(pending))))

  return {
    references: {
      correctionMs: () => current.correctionSeconds * 1000,
      observe(reading: TimeReading) {
        estimator.observe(reading)
        soon()
      },
    },
    status: () => current,
    onChange: changes.event,
    // Its last status write finished too: nothing writes into the data dir once stop resolves.
    stop: async () => {
      owned.dispose()
      await writing
    },
  }
}
