import type { Uptime } from '../contract/alerts'

const windows = [
  { label: '24 h', ms: 24 * 3_600_000, ratio: (u: Uptime) => u.ratio24h },
  { label: '7 d', ms: 7 * 24 * 3_600_000, ratio: (u: Uptime) => u.ratio7d },
  { label: '30 d', ms: 30 * 24 * 3_600_000, ratio: (u: Uptime) => u.ratio30d },
] as const

/** "99.20 %": truncated, so 99.996 % is not shown as 100.00 %. */
export const formatRatio = (r: number) => `${(Math.floor(r * 10_000) / 100).toFixed(2)} %`

/** "17 min", "5 h 12 min", "3 d 4 h": the two largest units. */
export function formatSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  const d = Math.floor(s / 86_400)
  const h = Math.floor((s % 86_400) / 3600)
  const m = Math.floor((s % 3600) / 60)
  if (d > 0) return `${d} d${h ? ` ${h} h` : ''}`
  if (h > 0) return `${h} h${m ? ` ${m} min` : ''}`
  if (m > 0) return `${m} min`
  return `${s} s`
}

export interface UptimeFigure {
  /** "24 h", or "last 17 min of data" for a window not yet full. */
  label: string
  /** The ratio as text, or "no data" for a window without polls. */
  value: string
  /** True when the figure covers the whole window. */
  full: boolean
}

/** The uptime figures the data backs: one per full window, then one for the data there is (a window
 * that starts before the first poll says the period it covers instead of claiming 7 or 30 days);
 * none at all without polls. */
export function uptimeFigures(u: Uptime): UptimeFigure[] {
  if (u.dataSince === null) return []
  const covered = u.at - u.dataSince
  const out: UptimeFigure[] = []
  for (const w of windows) {
    const ratio = w.ratio(u)
    if (covered >= w.ms) {
      out.push({ label: w.label, value: ratio === null ? 'no data' : formatRatio(ratio), full: true })
      continue
    }
    // The first window not full covers all the data; the larger ones would repeat the same figure.
    if (ratio !== null)
      out.push({ label: `last ${formatSpan(covered)} of data`, value: formatRatio(ratio), full: false })
    break
  }
  return out
}

/** One line: "24 h 99.98 % · 99.95 % over the last 3 d 4 h of data", or "no polls recorded yet". */
export function describeUptime(u: Uptime): string {
  const figures = uptimeFigures(u)
  if (figures.length === 0) return 'no polls recorded yet'
  return figures.map((f) => (f.full ? `${f.label} ${f.value}` : `${f.value} over the ${f.label}`)).join(' · ')
}
