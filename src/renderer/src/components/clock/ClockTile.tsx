import type { ClockStatus } from '../../../../shared/contract/clock'
import type { Tone } from '../Status'
import { StatusBadge } from '../Status'
import { Fact } from '../overview/Tile'

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

/** The clock on the Overview, inside "This console" (a tile of its own would push the chains
 * below the first screen): nothing while in step; when off the offset, the references and the fix. */
export function ClockFact({ status }: { status: ClockStatus | null }) {
  const badge = clockBadge(status)
  const counted = status?.references.filter((r) => r.offsetSeconds !== null) ?? []
  // Only what two references agree on is shown at a glance: in step, unknown, one reference alone
  // (old created_at of test events) or references that disagree stay in Settings → Chains, doctor
  // and the API; the tile keeps its size and the chains their place.
  if (status?.state !== 'off') return null
  return (
    <>
      <Fact label="clock">
        <span data-testid="clock-offset">
          <StatusBadge {...badge} title={`${status.message} ${status.fix ?? ''}`.trim()} />
        </span>
      </Fact>
      {counted.length > 0 && (
        <Fact label="by">
          {counted.map((r) => `${r.label.replace(/^the /, '')} ${signed(r.offsetSeconds!)}`).join(' · ')}
        </Fact>
      )}
      <p className="hint" data-testid="clock-message">
        Block ages are measured against the corrected clock. Fix: sync this machine&apos;s clock with NTP (
        <span className="mono">timedatectl set-ntp true</span>; more in Settings → Chains).
      </p>
    </>
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
