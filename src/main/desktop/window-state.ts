import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { z } from 'zod'

/** Window size and position, remembered in the data dir between launches. */
export const windowStateFileName = 'window-state.json'

export const WindowState = z
  .object({
    x: z.number().int().optional(),
    y: z.number().int().optional(),
    width: z.number().int().min(100).max(100_000),
    height: z.number().int().min(100).max(100_000),
    maximized: z.boolean().default(false),
  })
  .strict()
export type WindowState = z.infer<typeof WindowState>

export interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export interface Defaults {
  width: number
  height: number
  minWidth: number
  minHeight: number
}

export const windowStateFile = (dataDir: string) => join(dataDir, windowStateFileName)

/** The saved state, or null (with the reason) when there is none or it is not valid: a bad file
 * is never fatal, the window opens at its default size instead. */
export function readWindowState(file: string): { state: WindowState | null; problem: string | null } {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return { state: null, problem: null }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return {
      state: null,
      problem: `${file} is not valid JSON (${(error as Error).message}); using the default window size.`,
    }
  }
  const parsed = WindowState.safeParse(value)
  if (!parsed.success)
    return {
      state: null,
      problem: `${file} is not a window state (${z.prettifyError(parsed.error)}); using the default window size.`,
    }
  return { state: parsed.data, problem: null }
}

/** Written atomically (write, then rename) so a crash mid-write leaves the previous state. */
export function writeWindowState(file: string, state: WindowState): void {
  const valid = WindowState.parse(state)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(`${file}.tmp`, JSON.stringify(valid) + '\n')
  renameSync(`${file}.tmp`, file)
}

/** Below this much on a display, a window counts as lost (its display was unplugged). Once placed,
 * the window is pulled fully inside its display, so the title bar can always be reached. */
const minVisible = { width: 120, height: 40 }

/** Bounds for the new window: the saved ones when they still fit a connected display's work area,
 * shrunk to fit and moved inside the display they overlap most; centred on the primary display
 * (Electron's screen.getPrimaryDisplay(): the list of all displays has no fixed order) when they
 * barely overlap any (the monitor they were on is gone). */
export function placeWindow(
  saved: WindowState | null,
  displays: { primary: Rect; all: readonly Rect[] },
  defaults: Defaults,
): Rect & { maximized: boolean } {
  const { primary } = displays
  const workAreas = displays.all.length > 0 ? displays.all : [primary]
  const size = (area: Rect, width: number, height: number) => ({
    width: clamp(width, Math.min(defaults.minWidth, area.width), area.width),
    height: clamp(height, Math.min(defaults.minHeight, area.height), area.height),
  })
  const centred = (area: Rect, width: number, height: number) => {
    const s = size(area, width, height)
    return {
      x: area.x + Math.round((area.width - s.width) / 2),
      y: area.y + Math.round((area.height - s.height) / 2),
      ...s,
    }
  }
  if (!saved) return { ...centred(primary, defaults.width, defaults.height), maximized: false }
  if (saved.x === undefined || saved.y === undefined)
    return { ...centred(primary, saved.width, saved.height), maximized: saved.maximized }
  const bounds = { x: saved.x, y: saved.y, width: saved.width, height: saved.height }
  const home = bestOverlap(bounds, workAreas)
  const visible = home ? overlap(bounds, home) : { width: 0, height: 0 }
  if (!home || visible.width < minVisible.width || visible.height < minVisible.height) {
    return { ...centred(primary, saved.width, saved.height), maximized: saved.maximized }
  }
  const s = size(home, bounds.width, bounds.height)
  return {
    x: clamp(bounds.x, home.x, home.x + home.width - s.width),
    y: clamp(bounds.y, home.y, home.y + home.height - s.height),
    ...s,
    maximized: saved.maximized,
  }
}

function bestOverlap(rect: Rect, areas: readonly Rect[]): Rect | null {
  let best: Rect | null = null
  let bestArea = 0
  for (const area of areas) {
    const o = overlap(rect, area)
    if (o.width * o.height > bestArea) {
      best = area
      bestArea = o.width * o.height
    }
  }
  return best
}

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  return {
    width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)),
    height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y)),
  }
}

const clamp = (value: number, min: number, max: number) => Math.max(min, Math.min(max, value))
