/** Back-off between attempts (issue 11): 1 s, 5 s, 30 s, 2 min, 10 min, then every 10 min until
 * forward.maxAgeHours. Per target, `retrySchedule` replaces it (its last step repeats). */
export const defaultRetrySchedule = [1_000, 5_000, 30_000, 120_000, 600_000]

/** Delay before the retry that follows failed attempt number `attempt` (1-based). */
export function retryDelay(schedule: readonly number[], attempt: number): number {
  const steps = schedule.length > 0 ? schedule : defaultRetrySchedule
  return steps[Math.min(Math.max(attempt, 1), steps.length) - 1]!
}
