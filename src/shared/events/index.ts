/** The event-type catalogue of spec part 6.1, the retry schedule of part 6.2, and small pure
 * helpers the listener, the views and the notifier share. Data only, no I/O. */

import { matchesAnyGlob } from '../glob'

export const eventGroups = [
  { id: 'payments', label: 'Payments' },
  { id: 'cards', label: 'Cards' },
  { id: 'business', label: 'Business and compliance' },
] as const
export type EventGroupId = (typeof eventGroups)[number]['id']
/** A type the catalogue does not list is stored and shown as unknown, never rejected. */
export type EventGroup = EventGroupId | 'unknown'

export interface EventTypeInfo {
  type: string
  group: EventGroupId
  meaning: string
}

export const eventTypes: readonly EventTypeInfo[] = [
  { type: 'funding.initiated', group: 'payments', meaning: 'A funding request has been created' },
  { type: 'funding.completed', group: 'payments', meaning: 'Funds received and converted' },
  { type: 'funding.failed', group: 'payments', meaning: 'A funding request failed' },
  { type: 'payout.initiated', group: 'payments', meaning: 'A payout has been created' },
  { type: 'payout.completed', group: 'payments', meaning: 'Payout delivered to the recipient' },
  { type: 'payout.failed', group: 'payments', meaning: 'A payout failed' },
  { type: 'card.created', group: 'cards', meaning: 'A card has been issued' },
  {
    type: 'card.authorization.request',
    group: 'cards',
    meaning: 'Real-time authorization request; the receiver must respond within 2 seconds',
  },
  { type: 'card.transaction.completed', group: 'cards', meaning: 'A card transaction has settled' },
  { type: 'card.frozen', group: 'cards', meaning: 'A card has been frozen' },
  { type: 'card.cancelled', group: 'cards', meaning: 'A card has been cancelled' },
  {
    type: 'business.verification.approved',
    group: 'business',
    meaning: 'Business KYB verification approved',
  },
  {
    type: 'business.verification.rejected',
    group: 'business',
    meaning: 'Business KYB verification rejected',
  },
  {
    type: 'compliance.screening.flagged',
    group: 'business',
    meaning: 'A compliance screening flagged an issue',
  },
  { type: 'report.ready', group: 'business', meaning: 'A generated report is ready for download' },
]

const byType = new Map(eventTypes.map((t) => [t.type, t]))

export const eventTypeInfo = (type: string): EventTypeInfo | undefined => byType.get(type)
export const groupOf = (type: string): EventGroup => byType.get(type)?.group ?? 'unknown'
export const groupLabel = (group: EventGroup): string =>
  eventGroups.find((g) => g.id === group)?.label ?? 'Unknown type'

/** The one type the service expects an answer to within 2 seconds (spec 6.1, 8). */
export const authorizationRequestType = 'card.authorization.request'
export const authorizationDeadlineMs = 2000

// Made on first use: a process's first Intl.NumberFormat loads ICU's number data (about 25 ms of
// CPU), which every command that imports this catalogue paid at start and most never need.
let amountFormat: Intl.NumberFormat | undefined
const intlAmount = (n: number): string =>
  (amountFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 8 })).format(n)
/** `amountFormat.format(n)`, the same text, without Intl for a plain amount: the listener makes
 * the funding line of every funding event it commits, and the two Intl calls were most of it
 * (≈ 0.7 µs of the line's 0.8–1 µs; issue 35). Below 2^26 a double is within 5·10⁻⁹ of the
 * shortest decimal `String` writes, so when that decimal has at most 8 fraction digits, rounding
 * the double to 8 digits (what Intl does) gives that same decimal; anything else (larger, more
 * digits, an exponent, -0) goes to Intl. test/shared/events.test.ts compares the two. */
export function formatAmount(n: number): string {
  if (!(Math.abs(n) < 67_108_864) || Object.is(n, -0)) return intlAmount(n)
  const text = String(n)
  const dot = text.indexOf('.')
  const end = dot === -1 ? text.length : dot
  // An exponent (below 1e-6), or more fraction digits than Intl keeps: Intl rounds it.
  if (text.includes('e') || text.length - end > 9) return intlAmount(n)
  const from = n < 0 ? 1 : 0
  if (end - from <= 3) return text
  let grouped = text.slice(0, from + ((end - from) % 3 || 3))
  for (let at = grouped.length; at < end; at += 3) grouped += `,${text.slice(at, at + 3)}`
  return grouped + text.slice(end)
}

/** `1,000 USD → 998.75 USDC` for a funding data object (spec 2.3); null when the fields are not
 * there, so nothing is invented for a shape the spec does not show. */
export function fundingLine(type: string, data: unknown): string | null {
  if (!type.startsWith('funding.') || typeof data !== 'object' || data === null) return null
  const d = data as Record<string, unknown>
  const amount =
    typeof d.amount === 'number' && typeof d.currency === 'string'
      ? `${formatAmount(d.amount)} ${d.currency}`
      : null
  if (!amount) return null
  const target =
    typeof d.target_amount === 'number' && typeof d.target_currency === 'string'
      ? `${formatAmount(d.target_amount)} ${d.target_currency}`
      : null
  // Only a completed funding converted anything; a failed one must not read like it did.
  const outcome = type.slice('funding.'.length)
  if (outcome === 'failed')
    return `${amount} · failed, nothing converted${typeof d.target_currency === 'string' ? ` to ${d.target_currency}` : ''}`
  if (!target) return amount
  return outcome === 'completed'
    ? `${amount} → ${target}`
    : `${amount} → ${target} (${outcome}, not yet converted)`
}

/** Spec 6.2: delays after the 1st … 5th failed attempt. */
export const retryDelaysMs = [60_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 24 * 3_600_000] as const
export const maxAttempts = retryDelaysMs.length + 1

/** Offset of attempt n (1-based) from the first attempt: 0, 1 min, 6 min, 36 min, 2 h 36 min, 26 h 36 min. */
export function attemptOffsetMs(attempt: number): number {
  let offset = 0
  for (let i = 0; i < attempt - 1 && i < retryDelaysMs.length; i++) offset += retryDelaysMs[i]!
  return offset
}

export interface AttemptTime {
  attempt: number
  /** When the service's schedule puts this attempt, counting from the event's created_at. */
  expectedAt: number
  /** Delay before this attempt (null for the first). */
  delayMs: number | null
}

/** For an event received on delivery `deliveries` (> 1 means earlier attempts failed on our side):
 * when each attempt was due, assuming the first attempt went out at created_at. */
export function attemptSchedule(createdAtMs: number, deliveries: number): AttemptTime[] {
  const upTo = Math.min(Math.max(deliveries, 1), maxAttempts)
  return Array.from({ length: upTo }, (_, i) => ({
    attempt: i + 1,
    expectedAt: createdAtMs + attemptOffsetMs(i + 1),
    delayMs: i === 0 ? null : retryDelaysMs[i - 1]!,
  }))
}

export interface OutageRedelivery {
  retry: number
  /** Events first sent in this span … */
  sentFrom: number
  sentTo: number
  /** … come back as this retry, in this span (all after the listener is back). */
  arriveFrom: number
  arriveTo: number
}

export interface OutageExpectation {
  from: number
  to: number
  redeliveries: OutageRedelivery[]
  /** Latest moment an event sent during the outage can still arrive. */
  allArriveBy: number | null
  /** Events first sent before this moment used all their retries during the outage: the service
   * marks them failed; only a retry from its dashboard brings them. Null when none. */
  failedIfSentBefore: number | null
}

/** While the listener was down from `from` to `to`, every event the service tried to deliver is
 * retried on the schedule of 6.2; this says which retry brings which events back, and when. */
export function outageExpectation(from: number, to: number): OutageExpectation {
  const redeliveries: OutageRedelivery[] = []
  for (let retry = 1; retry <= retryDelaysMs.length; retry++) {
    const before = attemptOffsetMs(retry)
    const at = attemptOffsetMs(retry + 1)
    // First attempt at t; attempt `retry` (at t+before) fell in the outage, the next (t+at) does not.
    const sentFrom = Math.max(from, to - at)
    const sentTo = Math.min(to, to - before)
    if (sentFrom > sentTo) continue
    redeliveries.push({ retry, sentFrom, sentTo, arriveFrom: sentFrom + at, arriveTo: sentTo + at })
  }
  const lastOffset = attemptOffsetMs(maxAttempts)
  return {
    from,
    to,
    redeliveries,
    allArriveBy: redeliveries.length > 0 ? Math.max(...redeliveries.map((r) => r.arriveTo)) : null,
    failedIfSentBefore: from < to - lastOffset ? to - lastOffset : null,
  }
}

export const defaultNotificationPatterns = [
  '*.failed',
  'compliance.screening.flagged',
  'business.verification.rejected',
]

/** Whether a desktop notification is due for this type. Patterns match the whole type; `*`
 * stands for any run of characters (dots included): `*.failed`, `card.*`, `*`. */
export function shouldNotify(type: string, patterns: readonly string[]): boolean {
  return matchesAnyGlob(patterns, type)
}

/** The delay from created_at to receipt with the precision it has: created_at carries whole
 * seconds, so anything under a second is "< 1 s" and longer delays are whole seconds, never
 * milliseconds it does not have. A created_at with a fraction keeps milliseconds. */
export function formatEventDelay(createdAt: string, createdAtMs: number, receivedAt: number): string {
  const ms = receivedAt - createdAtMs
  if (/\.\d+/.test(createdAt)) return formatDuration(ms)
  if (ms <= -1000) return `${formatDuration(ms)} (the clocks differ)`
  if (ms < 1000) return '< 1 s'
  if (ms < 60_000) return `${Math.floor(ms / 1000)} s`
  return formatDuration(ms)
}

/** Which attempt of the schedule a receipt was: the latest attempt due by then (created_at's
 * whole second allowed for). A receipt after a lost attempt is a later retry than its count says. */
export function attemptOfReceipt(createdAtMs: number, receivedAt: number): number {
  let attempt = 1
  for (let n = 2; n <= maxAttempts; n++)
    if (createdAtMs + attemptOffsetMs(n) <= receivedAt + 1000) attempt = n
  return attempt
}

/** Human duration for delays and schedules: `850 ms`, `4.2 s`, `5 min`, `2 h 36 min`. */
export function formatDuration(ms: number): string {
  const abs = Math.abs(ms)
  const sign = ms < 0 ? '-' : ''
  if (abs < 1000) return `${sign}${Math.round(abs)} ms`
  if (abs < 60_000) return `${sign}${(abs / 1000).toFixed(1)} s`
  const minutes = Math.round(abs / 60_000)
  if (minutes < 60) return `${sign}${minutes} min`
  const hours = Math.floor(minutes / 60)
  const rest = minutes % 60
  return `${sign}${hours} h${rest ? ` ${rest} min` : ''}`
}
