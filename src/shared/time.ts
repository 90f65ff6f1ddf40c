/** The one way watchdesk writes a time, for the console and the CLI: 24-hour, ISO-like
 * (`2026-11-24 13:07:01`), fixed width so columns never jiggle, and the zone said once (the
 * console's header, the CLI's `--help`) rather than on every line. Relative ages ("12 s ago") where
 * the age matters more than the hour. Pure: the caller passes `now`, so tests never read a clock. */

/** `local`: the machine's zone (the console's default); `utc`: for logs and machine output. */
export type TimeZoneChoice = 'local' | 'utc'

export interface TimeOptions {
  zone?: TimeZoneChoice
  /** Append milliseconds (`13:07:01.916`): the Events table, where order within a second matters. */
  millis?: boolean
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

interface Parts {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  ms: number
}

function partsOf(ms: number, zone: TimeZoneChoice): Parts {
  const d = new Date(ms)
  return zone === 'utc'
    ? {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: d.getUTCHours(),
        minute: d.getUTCMinutes(),
        second: d.getUTCSeconds(),
        ms: d.getUTCMilliseconds(),
      }
    : {
        year: d.getFullYear(),
        month: d.getMonth() + 1,
        day: d.getDate(),
        hour: d.getHours(),
        minute: d.getMinutes(),
        second: d.getSeconds(),
        ms: d.getMilliseconds(),
      }
}

/** `13:07:01` (or `13:07:01.916` with `millis`). */
export function formatClock(ms: number, options: TimeOptions = {}): string {
  const p = partsOf(ms, options.zone ?? 'local')
  const clock = `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`
  return options.millis ? `${clock}.${pad(p.ms, 3)}` : clock
}

/** `2026-11-24`. */
export function formatDate(ms: number, options: Pick<TimeOptions, 'zone'> = {}): string {
  const p = partsOf(ms, options.zone ?? 'local')
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`
}

/** `2026-11-24 13:07:01` (or `… 13:07:01.916` with `millis`): the one format for a point in time. */
export function formatDateTime(ms: number, options: TimeOptions = {}): string {
  return `${formatDate(ms, options)} ${formatClock(ms, options)}`
}

/** `13:07:01` when `ms` falls on the same day as `now`, the full `2026-11-24 13:07:01` otherwise:
 * for places where the day is usually today (a retry due, a last contact). */
export function formatMoment(ms: number, now: number, options: TimeOptions = {}): string {
  return formatDate(ms, options) === formatDate(now, options)
    ? formatClock(ms, options)
    : formatDateTime(ms, options)
}

/** "4 min 12 s": the two largest units, never negative. Under 10 s with one decimal ("3.7 s"). */
export function formatDuration(ms: number): string {
  const safe = Math.max(0, ms)
  if (safe < 10_000) return `${(Math.floor(safe / 100) / 10).toFixed(1)} s`
  const s = Math.floor(safe / 1000)
  const d = Math.floor(s / 86_400)
  const h = Math.floor((s % 86_400) / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  if (d > 0) return `${d} d${h ? ` ${h} h` : ''}`
  if (h > 0) return `${h} h${m ? ` ${m} min` : ''}`
  if (m > 0) return `${m} min${sec ? ` ${sec} s` : ''}`
  return `${sec} s`
}

/** "12 s ago", "4 min ago", "2 h 5 min ago"; "just now" under a second; "in 3 s" for a time
 * still ahead (a retry due). */
export function formatAge(ms: number, now: number): string {
  const delta = now - ms
  if (Math.abs(delta) < 1000) return 'just now'
  if (delta < 0) return `in ${roundedDuration(-delta)}`
  return `${roundedDuration(delta)} ago`
}

/** An age reads in whole seconds: "3 s ago", not "3.7 s ago". */
function roundedDuration(ms: number): string {
  return ms < 60_000 ? `${Math.floor(ms / 1000)} s` : formatDuration(ms)
}

/** The zone as said once in a header: "UTC" or "UTC+01:00 Europe/Berlin" (the offset at `at`,
 * which changes with daylight saving). */
export function zoneLabel(at: number, zone: TimeZoneChoice = 'local'): string {
  if (zone === 'utc') return 'UTC'
  const offset = -new Date(at).getTimezoneOffset()
  const name = zoneName()
  if (offset === 0 && (name === null || name === 'UTC' || name === 'Etc/UTC')) return 'UTC'
  const sign = offset < 0 ? '-' : '+'
  const abs = Math.abs(offset)
  const label = `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  return name ? `${label} ${name}` : label
}

function zoneName(): string | null {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null
  } catch {
    return null
  }
}
