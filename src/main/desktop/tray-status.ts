import { statusLabel, statusTone, worstStatus } from '../../shared/chains/health'
import type { ChainStatusKind, StatusTone } from '../../shared/chains/health'
import type { ChainStatusLike } from './push-payloads'

/** The tray's four looks: a glance must tell "all fine" from "look now". */
export type TrayLevel = 'good' | 'warn' | 'bad' | 'idle'

export interface TrayState {
  level: TrayLevel
  /** The worst status over the configured chains; null before the first poll or with none configured. */
  worst: ChainStatusKind | null
  unseenAlerts: number
  tooltip: string
}

/** The tray's level is the status's tone (one ranking for the Chains view and the tray); the
 * tones that are no verdict (checking, not configured) show as idle. */
const levelOfTone: Record<StatusTone, TrayLevel> = {
  good: 'good',
  warn: 'warn',
  bad: 'bad',
  info: 'idle',
  muted: 'idle',
}
const levelOf = (status: ChainStatusKind): TrayLevel => levelOfTone[statusTone[status]]

/** Tray icon and tooltip from the chains' statuses and the count of unseen alerting events.
 * Chains that are not configured do not count: they cannot be unhealthy. An unseen alert turns a
 * good tray amber, so a notification missed while away still shows. */
export function trayState(chains: readonly ChainStatusLike[], unseenAlerts: number): TrayState {
  const configured = chains.filter((c) => c.status !== 'not_configured' && c.enabled !== false)
  const worst = worstStatus(configured.map((c) => c.status))
  let level: TrayLevel = worst ? levelOf(worst) : 'idle'
  if (unseenAlerts > 0 && (level === 'good' || level === 'idle')) level = 'warn'
  const lines = ['watchdesk', chainSummary(chains, configured, worst)]
  if (unseenAlerts > 0) lines.push(`${unseenAlerts} unseen alerting event${unseenAlerts === 1 ? '' : 's'}`)
  return { level, worst, unseenAlerts, tooltip: lines.join('\n') }
}

function chainSummary(
  all: readonly ChainStatusLike[],
  configured: readonly ChainStatusLike[],
  worst: ChainStatusKind | null,
): string {
  if (all.length === 0) return 'chains: waiting for the first poll'
  if (configured.length === 0) return 'chains: none configured (set rpcBaseUrl and the project uid)'
  if (worst === 'healthy') return `chains: all ${configured.length} healthy`
  const counts = new Map<ChainStatusKind, number>()
  for (const c of configured)
    if (c.status !== 'healthy') counts.set(c.status, (counts.get(c.status) ?? 0) + 1)
  const parts = [...counts].map(([status, n]) => `${n} ${statusLabel[status]}`)
  const bad = configured.filter((c) => levelOf(c.status) === 'bad').map((c) => c.name)
  return `chains: ${parts.join(', ')}${bad.length ? ` (${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ', …' : ''})` : ''}`
}

const rgba: Record<TrayLevel, [number, number, number]> = {
  good: [0x3f, 0xb9, 0x50],
  warn: [0xd2, 0x99, 0x22],
  bad: [0xf8, 0x51, 0x49],
  idle: [0x8b, 0x94, 0x9e],
}

/** The tray icon as raw BGRA pixels (what Electron's nativeImage.createFromBitmap takes): a filled
 * dot in the level's colour inside a dark ring, antialiased, so no image files are needed and
 * every level is drawn the same way at any scale. Skia takes the pixels premultiplied: each colour
 * channel is already multiplied by the pixel's alpha, or the antialiased edge shows a bright fringe. */
export function trayBitmap(level: TrayLevel, size: number): Buffer {
  const pixels = Buffer.alloc(size * size * 4)
  const [r, g, b] = rgba[level]
  const centre = (size - 1) / 2
  const outer = size / 2 - 0.5
  const inner = outer - Math.max(1, size / 10)
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - centre, y - centre)
      const coverage = Math.max(0, Math.min(1, outer - d + 0.5))
      if (coverage === 0) continue
      const fill = Math.max(0, Math.min(1, inner - d + 0.5))
      const i = (y * size + x) * 4
      // ring #0f1216 blended with the fill colour, then premultiplied by the dot's coverage
      pixels[i] = Math.round((0x16 + (b - 0x16) * fill) * coverage)
      pixels[i + 1] = Math.round((0x12 + (g - 0x12) * fill) * coverage)
      pixels[i + 2] = Math.round((0x0f + (r - 0x0f) * fill) * coverage)
      pixels[i + 3] = Math.round(255 * coverage)
    }
  }
  return pixels
}

/** What the tray shows, as the shell hands it to Electron. */
export interface TrayLook {
  level: TrayLevel
  tooltip: string
  /** The menu's content: its first lines (summary, unseen count). */
  menu: string
  badge: number
}

export function trayLook(state: TrayState): TrayLook {
  const summary = state.tooltip.split('\n')[1] ?? ''
  return {
    level: state.level,
    tooltip: state.tooltip,
    menu: `${summary}\n${state.unseenAlerts}`,
    badge: state.unseenAlerts,
  }
}

/** Which parts of the tray changed: each chain poll pushes a state, and rebuilding the menu or
 * the image every few seconds makes some trays flicker or close an open menu. */
export function trayChanges(previous: TrayLook | null, next: TrayLook): (keyof TrayLook)[] {
  const keys: (keyof TrayLook)[] = ['level', 'tooltip', 'menu', 'badge']
  return previous ? keys.filter((k) => previous[k] !== next[k]) : keys
}
