import { formatDateTime } from '../../../../shared/time'

/** The one time format: `2026-11-24 13:07:01` (src/shared/time.ts). */
export const fmtTime = (t: number) => formatDateTime(t)
