import { performance } from 'node:perf_hooks'
import type { PollClock } from '../../shared/clock'
import type { Disposable } from '../../shared/disposable'

/** When the dispatcher looks at the outbox next: soon after a kick or a finished attempt (grouped,
 * see `soon`), or at the earliest moment anything can start by the clock alone. It never polls. */
export interface StepTimer {
  /** A step soon: at once when the last was at least `stepEveryMs` ago, else when that much has
   * passed. */
  soon(): void
  /** One timer for the earliest moment anything can start by the clock alone; none when `at` is
   * not finite (idle). */
  sleepUntil(at: number): void
  /** A step is about to run. */
  pending(): boolean
  /** No step runs after this. */
  stop(): void
}

/** Each step with work is one write transaction, which the commit worker may have to wait for:
 * under load steps come at most every `stepEveryMs`, each with more rows in it. (Real time, not
 * `clock`: this is how work is grouped, not when rows are due.) 100 ms rather than 50 took ingest
 * with one target from 0.82–0.89 to 0.88–0.91 of ingest alone (docs/benchmarks.md); a forward
 * under steady load starts up to 100 ms later, an authorization relay not at all. */
export function createStepTimer(clock: PollClock, stepEveryMs: number, step: () => void): StepTimer {
  let stopped = false
  let soonScheduled = false
  let lastStepAt = -Infinity
  let wake: { at: number; timer: Disposable } | null = null

  function soon(): void {
    if (soonScheduled || stopped) return
    soonScheduled = true
    const run = () => {
      soonScheduled = false
      lastStepAt = performance.now()
      if (!stopped) step()
    }
    const wait = lastStepAt + stepEveryMs - performance.now()
    if (wait <= 0) setImmediate(run)
    else setTimeout(run, wait)
  }

  function sleepUntil(at: number): void {
    if (wake && wake.at === at) return
    wake?.timer.dispose()
    wake = null
    if (!Number.isFinite(at) || stopped) return
    const timer = clock.after(Math.max(0, at - clock.now()), () => {
      wake = null
      soon()
    })
    wake = { at, timer }
  }

  return {
    soon,
    sleepUntil,
    pending: () => soonScheduled,
    stop() {
      stopped = true
      wake?.timer.dispose()
      wake = null
    },
  }
}
