import { formatDateTime, formatDuration } from '../../../../shared/time'

/** "4 min 12 s": the two largest units (src/shared/time.ts, as the CLI says it). */
export const fmtDuration = (ms: number | null): string => (ms === null ? '—' : formatDuration(ms))

/** The one time format: `2026-11-24 13:07:01`. */
export const fmtTime = (t: number) => formatDateTime(t)

export const fmtRatio = (r: number | null) =>
  r === null ? '—' : `${(Math.floor(r * 10_000) / 100).toFixed(2)} %`
