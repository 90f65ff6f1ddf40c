import { useNow } from '../hooks/useNow'
import { useStaleSince, useLinkStore } from '../stores/link'
import { StatusBadge } from './Status'
import type { ResponseOf } from '../../../shared/contract'
import { formatClock, formatDuration } from '../../../shared/time'

/** A time of today in the one format (src/shared/time.ts): `13:07:01`. */
export const clockTime = (ms: number) => formatClock(ms)

/** "42 s", "3 min 5 s", "2 h 10 min": how old a figure is. */
export function formatAge(ms: number): string {
  return ms < 60_000 ? `${Math.max(0, Math.floor(ms / 1000))} s` : formatDuration(ms)
}

/** The sidebar's back-end status: the version in green only while heartbeats arrive. */
export function BackendStatus({
  health,
  liveLabel,
}: {
  health: ResponseOf<'app.health'> | null
  /** The word while live; the version by default. */
  liveLabel?: string
}) {
  const link = useLinkStore((s) => s.link)
  if (link.state === 'lost')
    return (
      <StatusBadge
        tone="bad"
        label={`back end unreachable since ${clockTime(link.since)}`}
        title={link.why}
      />
    )
  if (link.state === 'connecting' || !health) return <StatusBadge tone="muted" label="connecting" />
  return (
    <StatusBadge
      tone="good"
      label={liveLabel ?? `back end ${health.version}`}
      title={`${health.shell} since ${health.startedAt}`}
    />
  )
}

const advice = {
  http: 'Is watchdesk serve still running? This page reconnects by itself once it answers (same port and token) and reloads what changed.',
  ipc: 'The app’s back end stopped answering; the window reconnects by itself once it does and reloads what changed.',
} as const

/** Across every view while the back end is away: since when, why, and that it comes back by itself. */
export function LinkBanner({ transport }: { transport: keyof typeof advice }) {
  const link = useLinkStore((s) => s.link)
  const now = useNow(link.state === 'lost')
  if (link.state !== 'lost') return null
  return (
    <div className="banner banner-bad link-banner" role="alert">
      <strong>Back end unreachable since {clockTime(link.since)}</strong>{' '}
      <span className="num">({formatAge(now - link.since)})</span>: {link.why.replace(/\.$/, '')}.{' '}
      {advice[transport]} Figures are greyed at their last known values.
    </div>
  )
}

/** Beside a live figure: nothing while live, "as of 15:33:55 · 42 s old" while the back end is away. */
export function StaleNote() {
  const since = useStaleSince()
  const now = useNow(since !== null)
  if (since === null) return null
  return (
    <span className="stale-note num" title="The back end is unreachable: this is its last known state">
      as of {clockTime(since)} · {formatAge(now - since)} old
    </span>
  )
}
