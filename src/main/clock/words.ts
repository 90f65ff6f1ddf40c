import type { ClockReference } from '../../shared/contract/clock'
import type { ClockVerdict } from './estimate'

/** The clock guard's sentence and fix, from its verdict. */

export const ntpFix =
  'Synchronise the clock with NTP: Linux `timedatectl set-ntp true` (or start chronyd/ntpd), macOS ' +
  'System Settings → General → Date & Time → "Set time and date automatically", Windows Settings → ' +
  'Time & language → Date & time → "Sync now".'

/** `+120 s` / `−3.5 s`: the sign says ahead or behind. */
export function signedSeconds(seconds: number): string {
  const abs = Math.abs(seconds)
  const text = abs >= 100 ? String(Math.round(abs)) : String(Math.round(abs * 10) / 10)
  return `${seconds < 0 ? '−' : '+'}${text} s`
}

export function aheadOrBehind(seconds: number): string {
  const abs = Math.abs(seconds)
  const text = abs >= 100 ? Math.round(abs) : Math.round(abs * 10) / 10
  return `${text} s ${seconds < 0 ? 'behind' : 'ahead'}`
}

const listed = (refs: ClockReference[]) =>
  refs.map((r) => `${r.label} ${signedSeconds(r.offsetSeconds!)}`).join(', ')

export function describe(verdict: ClockVerdict): { message: string; fix: string | null } {
  const counted = verdict.references.filter((r) => r.counted)
  const offset = verdict.offsetSeconds
  switch (verdict.state) {
    case 'unknown':
      return {
        message:
          'No time reference yet: the clock is checked against the chains, the RPC gateway, the payments API and webhooks once they answer.',
        fix: null,
      }
    case 'ok':
      return {
        message: `This machine's clock agrees with ${counted.map((r) => r.label).join(', ')} (offset ${signedSeconds(offset!)}, threshold ${verdict.thresholdSeconds} s).`,
        fix: null,
      }
    case 'off':
      return {
        message: `This machine's clock is ${aheadOrBehind(offset!)} of ${listed(counted)}: block ages are measured against the corrected clock (${signedSeconds(-verdict.correctionSeconds)}) until it is fixed.`,
        fix: ntpFix,
      }
    case 'unconfirmed':
      return {
        message: `Only ${counted[0]!.label} says this machine's clock is ${aheadOrBehind(offset!)}; no second reference confirms it, so block ages are not corrected.`,
        fix: `If the clock is wrong: ${ntpFix}`,
      }
    case 'disagree':
      return {
        message: `The time references disagree (${listed(counted)}): nothing is corrected. A gateway serving old blocks, or a server with a wrong clock, looks like this.`,
        fix: `Check the chains' sources and the clock; ${ntpFix}`,
      }
  }
}
