import type { ClockStatus } from '../../../../shared/contract/clock'
import type { Tone } from '../Status'
import { Fact, Tile } from '../overview/Tile'

const signed = (s: number) =>
  `${s < 0 ? '−' : '+'}${Math.abs(s) >= 100 ? Math.round(Math.abs(s)) : Math.abs(s)} s`

export function clockBadge(status: ClockStatus | null): { tone: Tone; label: string } {
  if (!status) return { tone: 'muted', label: 'loading' }
  switch (status.state) {
    case 'unknown':
      return { tone: 'muted', label: 'no reference yet' }
    case 'ok':
      return { tone: 'good', label: 'in step' }
    case 'off':
      return { tone: 'warn', label: `${signed(status.offsetSeconds!)} off` }
    case 'unconfirmed':
      return { tone: 'warn', label: 'unconfirmed offset' }
    case 'disagree':
      return { tone: 'warn', label: 'references disagree' }
  }
}

/** The Overview's clock tile: the offset at a glance, the references behind it, the fix. */
export function ClockTile({ status }: { status: ClockStatus | null }) {
  const badge = clockBadge(status)
  const counted = status?.references.filter((r) => r.offsetSeconds !== null) ?? []
  return (
    <Tile title="Clock" href="#/settings" linkLabel="open Settings → Chains" {...badge}>
      {status && status.offsetSeconds !== null && (
        <Fact label="offset">
          <span className="num" data-testid="clock-offset">
            {signed(status.offsetSeconds)}
          </span>
          {status.correctionSeconds !== 0 && <span className="dim"> · block ages corrected</span>}
        </Fact>
      )}
      {counted.length > 0 && (
        <Fact label="by">
          {counted.map((r) => `${r.label.replace(/^the /, '')} ${signed(r.offsetSeconds!)}`).join(' · ')}
        </Fact>
      )}
      {status && status.state === 'off' && (
        <p className="hint" data-testid="clock-message" title={`${status.message} ${status.fix ?? ''}`}>
          Block ages are measured against the corrected clock. Fix: synchronise this machine&apos;s clock with
          NTP (<span className="mono">timedatectl set-ntp true</span>; more in Settings → Chains).
        </p>
      )}
      {status && status.state !== 'off' && status.state !== 'ok' && (
        <p className="hint" data-testid="clock-message">
          {status.message}
        </p>
      )}
    </Tile>
  )
}

/** Settings → Chains: the same facts as a paragraph above the chains' settings. */
export function ClockNote({ status }: { status: ClockStatus | null }) {
  if (!status) return null
  const badge = clockBadge(status)
  return (
    <p className={`banner ${badge.tone === 'warn' ? 'banner-warn' : 'banner-info'}`} data-testid="clock-note">
      <strong>Clock: {badge.label}.</strong> {status.message} {status.fix}
    </p>
  )
}
