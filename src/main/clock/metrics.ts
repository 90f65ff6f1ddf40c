import type { ClockStatus } from '../../shared/contract/clock'

/** `/metrics` for the clock guard as plain data (no metrics library here: commands that import
 * this capability's surface, `watchdesk mcp`, stay light); the composer makes them gauges. */
export interface GaugeSpec {
  name: string
  help: string
  labelNames?: string[]
  /** The samples at scrape time: none means no sample (not a made-up 0). */
  read(): { labels?: Record<string, string>; value: number }[]
}

export function clockGauges(status: () => ClockStatus): GaugeSpec[] {
  return [
    {
      name: 'watchdesk_clock_offset_seconds',
      help: "This machine's clock minus the time references (positive: ahead); no sample before a reference answered",
      read: () => {
        const s = status()
        return s.offsetSeconds === null ? [] : [{ value: s.offsetSeconds }]
      },
    },
    {
      name: 'watchdesk_clock_correction_seconds',
      help: 'What block ages are corrected by (0 unless two references agree the clock is off)',
      read: () => [{ value: status().correctionSeconds }],
    },
    {
      name: 'watchdesk_clock_off',
      help: '1 while the references agree the clock is off by more than clock.offsetWarnSeconds',
      read: () => [{ value: status().state === 'off' ? 1 : 0 }],
    },
    {
      name: 'watchdesk_clock_reference_offset_seconds',
      help: 'Each time reference: local clock minus the reference (no sample without readings)',
      labelNames: ['reference'],
      read: () =>
        status().references.flatMap((r) =>
          r.offsetSeconds === null ? [] : [{ labels: { reference: r.kind }, value: r.offsetSeconds }],
        ),
    },
  ]
}
