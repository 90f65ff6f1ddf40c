import { statusTone } from '../../shared/chains/health'
import type { ChainStatusKind } from '../../shared/chains/health'
import { glance } from '../../shared/glance'
import type { Glance, GlanceInput } from '../../shared/glance'
import type { ChainStatusLike } from './push-payloads'

/** The tray's four looks: a glance must tell "all fine" from "look now". */
export type TrayLevel = 'good' | 'warn' | 'bad' | 'idle'

export interface TrayState {
  level: TrayLevel
  /** The worst status over the configured chains; null before the first poll or with none configured. */
  worst: ChainStatusKind | null
  unseenAlerts: number
  /** The one-line summary (src/shared/glance.ts): the menu's first line. */
  summary: string
  tooltip: string
}

/** The glance's tone as the tray's level; muted (nothing known, nothing configured) is idle. */
const levelOfTone: Record<Glance['tone'], TrayLevel> = {
  good: 'good',
  warn: 'warn',
  bad: 'bad',
  muted: 'idle',
}

/** What the tray knows besides the chains: open incidents (`alerts.changed`), the listener's
 * events per minute (`events.listener`), failing forward targets and relay sources not syncing. */
export type TrayFacts = Omit<GlanceInput, 'chains'>

export const noTrayFacts: TrayFacts = { openIncidents: null, eventsPerMinute: null }

/** Tray icon, tooltip and menu line from the same one-line summary as the Overview's header
 * (src/shared/glance.ts). Chains that are not configured do not count: they cannot be unhealthy.
 * An unseen alert turns a good tray amber, so a notification missed while away still shows. */
export function trayState(
  chains: readonly ChainStatusLike[],
  unseenAlerts: number,
  facts: TrayFacts = noTrayFacts,
): TrayState {
  const summary = glance({ ...facts, chains })
  let level = levelOfTone[summary.tone]
  if (unseenAlerts > 0 && (level === 'good' || level === 'idle')) level = 'warn'
  const lines = ['watchdesk', summary.line]
  const detail = chainDetail(chains, summary)
  if (detail) lines.push(detail)
  if (unseenAlerts > 0) lines.push(`${unseenAlerts} unseen alerting event${unseenAlerts === 1 ? '' : 's'}`)
  return { level, worst: summary.worst, unseenAlerts, summary: summary.line, tooltip: lines.join('\n') }
}

/** The second tooltip line: which chains are in a bad state, or what to set when none is configured. */
function chainDetail(chains: readonly ChainStatusLike[], summary: Glance): string | null {
  if (chains.length > 0 && summary.chains === 0) return 'set rpcBaseUrl and the project uid to watch chains'
  const bad = summary.unhealthy.filter((u) => statusTone[u.status] === 'bad').flatMap((u) => u.names)
  if (bad.length === 0) return null
  return `not working: ${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ', …' : ''}`
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
  return {
    level: state.level,
    tooltip: state.tooltip,
    menu: `${state.summary}\n${state.unseenAlerts}`,
    badge: state.unseenAlerts,
  }
}

/** Which parts of the tray changed: each chain poll pushes a state, and rebuilding the menu or
 * the image every few seconds makes some trays flicker or close an open menu. */
export function trayChanges(previous: TrayLook | null, next: TrayLook): (keyof TrayLook)[] {
  const keys: (keyof TrayLook)[] = ['level', 'tooltip', 'menu', 'badge']
  return previous ? keys.filter((k) => previous[k] !== next[k]) : keys
}
