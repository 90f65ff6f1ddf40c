import type { DoctorCheck } from '../../shared/contract/app'
import type { TimeReferences } from '../../shared/time-references'
import { ClockEstimator } from './estimate'
import { statusOf } from './status'

/** `watchdesk doctor`'s clock line: the readings of the doctor's own poll round (block stamps and
 * the gateway's Date), one sample each, judged as the console judges them. */
export interface ClockProbe {
  references: TimeReferences
  /** Null when no reference answered (no chain polled): nothing to say. */
  line(now?: number): DoctorCheck | null
}

export function clockProbe(thresholdSeconds: number): ClockProbe {
  const estimator = new ClockEstimator({ thresholdSeconds })
  return {
    references: { correctionMs: () => 0, observe: (reading) => estimator.observe(reading) },
    line(now = Date.now()) {
      const status = statusOf(estimator.estimate(now), now)
      if (status.state === 'unknown') return null
      return {
        area: 'clock',
        label: 'Clock',
        state: status.state === 'ok' ? 'ok' : 'warn',
        detail: status.message,
        fix: status.fix,
        blockedBy: null,
      }
    },
  }
}
