import type { ClockStatus } from '../../shared/contract/clock'
import type { ClockVerdict } from './estimate'
import { describe } from './words'

/** The verdict with its sentence and fix, stamped. */
export function statusOf(verdict: ClockVerdict, at: number): ClockStatus {
  return { ...verdict, ...describe(verdict), at: new Date(at).toISOString() }
}
