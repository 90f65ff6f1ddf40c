import { attemptOffsetMs, maxAttempts } from '../../shared/events'

/** A time the listener could not be reached from the service: `to` null while it lasts. */
export interface DownSpan {
  from: number
  to: number | null
  /** What showed it: `public_url`, `listener` (not listening), `listener_runs` (the process was
   * not running), `source:<name>`. */
  cause: string
  /** The failing check's sentence, for the alert's evidence. */
  detail: string
}

/** Where an endpoint stands against the service's retry ladder (spec 6.2.6–7). */
export interface Forecast {
  state: 'clear' | 'at_risk' | 'failed'
  /** Start of the outage under way (spans joined), null when the listener is reachable. */
  downSince: number | null
  /** What shows the outage under way (the newest span's cause and sentence). */
  evidence: { cause: string; detail: string } | null
  /** When the first deliveries still retrying use their 5th and last retry, if the outage lasts
   * (null: nothing under way can fail). */
  deadline: number | null
  /** Deliveries first sent from `failedFrom` to before `failedBefore` used every attempt while the
   * listener was down: the service marked them failed (at `failedAt`, the last one). */
  failedFrom: number | null
  failedBefore: number | null
  failedAt: number | null
}

/** Spans nearer than this are one outage: the public URL is checked every minute and a restart
 * leaves seconds between the last sign of life and the next check, not a time anything got in. */
export const joinGapMs = 2 * 60_000
/** The 5th retry's offset from the first attempt: 26 h 36 min. */
export const ladderMs = attemptOffsetMs(maxAttempts)
const offsets = Array.from({ length: maxAttempts }, (_, i) => attemptOffsetMs(i + 1))

interface Interval {
  from: number
  to: number
}

/** Sorted, overlapping (or nearer than `joinGapMs`) spans joined; an open span reaches `open`. */
export function joinSpans(spans: readonly DownSpan[], open: number): Interval[] {
  const sorted = spans
    .map((s) => ({ from: s.from, to: s.to ?? open }))
    .filter((s) => s.to >= s.from)
    .sort((a, b) => a.from - b.from)
  const out: Interval[] = []
  for (const s of sorted) {
    const last = out.at(-1)
    if (last && s.from - last.to <= joinGapMs) last.to = Math.max(last.to, s.to)
    else out.push({ ...s })
  }
  return out
}

function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = []
  let i = 0
  let j = 0
  while (i < a.length && j < b.length) {
    const from = Math.max(a[i]!.from, b[j]!.from)
    const to = Math.min(a[i]!.to, b[j]!.to)
    if (from <= to) out.push({ from, to })
    if (a[i]!.to < b[j]!.to) i++
    else j++
  }
  return out
}

/** First-attempt times t whose every attempt (t, t + 1 min, … t + 26 h 36 min) falls in `down`. */
export function exhaustedFirstAttempts(down: Interval[]): Interval[] {
  let times = down
  for (const offset of offsets.slice(1))
    times = intersect(
      times,
      down.map((d) => ({ from: d.from - offset, to: d.to - offset })),
    )
  return times
}

/** The forecast from the outages seen: a delivery first sent at t is marked failed when all six
 * of its attempts fall in outages (a retry 24 h later can land in the next outage); an outage
 * under way is assumed to last, so its deadline is when the earliest such delivery uses its 5th
 * retry. At risk within `leadMs` of that deadline; failed once a delivery's last attempt passed. */
export function forecast(spans: readonly DownSpan[], now: number, leadMs: number): Forecast {
  const ongoing = spans.filter((s) => s.to === null)
  // An outage under way reaches far enough past now for any delivery's ladder.
  const down = joinSpans(spans, ongoing.length > 0 ? now + 2 * ladderMs : now)
  const current = ongoing.length > 0 ? down.find((d) => d.from <= now && d.to > now) : undefined
  const exhausted = exhaustedFirstAttempts(down)
  const lastAttempt = offsets.at(-1)!
  const past = exhausted.filter((t) => t.from + lastAttempt <= now)
  const future = exhausted.find((t) => t.to + lastAttempt > now)
  const deadline = current && future ? Math.max(future.from + lastAttempt, now) : null
  const failedBefore = past.length > 0 ? Math.min(past.at(-1)!.to, now - lastAttempt) : null
  const newest = ongoing.sort((a, b) => b.from - a.from)[0]
  const state =
    past.length > 0 ? 'failed' : deadline !== null && deadline - now <= leadMs ? 'at_risk' : 'clear'
  return {
    state,
    downSince: current?.from ?? null,
    evidence: current && newest ? { cause: newest.cause, detail: newest.detail } : null,
    deadline,
    failedFrom: past[0]?.from ?? null,
    failedBefore,
    failedAt: failedBefore === null ? null : failedBefore + lastAttempt,
  }
}
