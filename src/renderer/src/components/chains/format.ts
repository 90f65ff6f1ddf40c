import type { ChainStatus } from '../../../../shared/contract/chains'
import { statusLabel, statusTone } from '../../../../shared/chains/health'

export const dash = '—'

export const fmtInt = (n: number | null) => (n === null ? dash : n.toLocaleString('en-US'))

export function fmtSeconds(s: number | null): string {
  if (s === null) return dash
  if (s < 10) return `${s.toFixed(1)} s`
  if (s < 120) return `${Math.round(s)} s`
  if (s < 7200) return `${Math.round(s / 60)} min`
  return `${(s / 3600).toFixed(1)} h`
}

export const fmtMs = (ms: number | null) => (ms === null ? dash : `${Math.round(ms)} ms`)

export const fmtLagBlocks = (c: ChainStatus) =>
  c.lagBlocks === null ? dash : `${c.lagEstimated ? '~' : ''}${c.lagBlocks.toLocaleString('en-US')}`

/** "6 blk": the head block's age in blocks of the measured block time. */
export const fmtAgeBlocks = (c: Pick<ChainStatus, 'blockAgeSeconds' | 'blockTimeMs'>) =>
  c.blockAgeSeconds === null || c.blockTimeMs <= 0
    ? dash
    : `${Math.round((c.blockAgeSeconds * 1000) / c.blockTimeMs).toLocaleString('en-US')} blk`

export const badgeOf = (c: Pick<ChainStatus, 'status'> & Partial<Pick<ChainStatus, 'confirming'>>) => ({
  tone: statusTone[c.status],
  label: c.confirming ? `failing (${c.confirming.count}/${c.confirming.needed})` : statusLabel[c.status],
})
