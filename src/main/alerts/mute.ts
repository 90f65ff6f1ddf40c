import type { MuteWindow } from '../../shared/alerts/config'
import { weekdays } from '../../shared/alerts/config'
import type { MuteInfo } from '../../shared/contract/alerts'

/** A mute set from the console ("mute 1 h") or over MCP, kept in SQLite until it ends. */
export interface ConsoleMute {
  id: number
  /** Who set it: the console, or an agent over MCP (`watchdesk mcp --allow-write`). */
  source: 'console' | 'mcp'
  from: number
  to: number
  chains: number[] | null
  reason: string | null
}

export interface MuteSubject {
  rule: string
  serviceId: number | null
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/** Whether a config window covers time `t` (local time for recurring windows). */
export function windowActive(w: MuteWindow, t: number): boolean {
  if (w.from !== undefined && w.to !== undefined) {
    const inRange = t >= Date.parse(w.from) && t < Date.parse(w.to)
    if (w.start === undefined || w.end === undefined) return inRange
    if (!inRange) return false
  }
  if (w.start === undefined || w.end === undefined) return false
  const d = new Date(t)
  const minute = d.getHours() * 60 + d.getMinutes()
  const start = minutesOf(w.start)
  const end = minutesOf(w.end)
  const day = weekdays[d.getDay()]!
  const yesterday = weekdays[(d.getDay() + 6) % 7]!
  const onDay = (name: (typeof weekdays)[number]) => !w.weekdays || w.weekdays.includes(name)
  if (start <= end) return onDay(day) && minute >= start && minute < end
  // Past midnight: the evening part belongs to today, the morning part to yesterday's window.
  return (onDay(day) && minute >= start) || (onDay(yesterday) && minute < end)
}

const covers = (chains: number[] | null | undefined, rules: string[] | null | undefined, s: MuteSubject) =>
  (!chains || (s.serviceId !== null && chains.includes(s.serviceId))) && (!rules || rules.includes(s.rule))

/** The mute that silences this alert at `t`, or null. */
export function mutedBy(
  windows: readonly MuteWindow[],
  consoleMutes: readonly ConsoleMute[],
  subject: MuteSubject,
  t: number,
): string | null {
  for (const [i, w] of windows.entries())
    if (windowActive(w, t) && covers(w.chains, w.rules, subject))
      return `maintenance window ${i + 1}${w.reason ? ` (${w.reason})` : ''}`
  for (const m of consoleMutes)
    if (t >= m.from && t < m.to && covers(m.chains, null, subject))
      return `muted ${m.source === 'mcp' ? 'over MCP' : 'from the console'} until ${new Date(m.to).toISOString()}${m.reason ? ` (${m.reason})` : ''}`
  return null
}

export function describeWindow(w: MuteWindow, i: number, t: number): MuteInfo {
  const parts: string[] = []
  if (w.from && w.to) parts.push(`${w.from} → ${w.to}`)
  if (w.start && w.end)
    parts.push(`${w.weekdays ? `every ${w.weekdays.join(', ')}` : 'every day'} ${w.start}–${w.end}`)
  if (w.chains) parts.push(`chains ${w.chains.join(', ')}`)
  if (w.rules) parts.push(`rules ${w.rules.join(', ')}`)
  if (w.reason) parts.push(w.reason)
  return {
    id: `config-${i + 1}`,
    source: 'config',
    description: parts.join(', '),
    chains: w.chains ?? null,
    activeNow: windowActive(w, t),
    until: null,
  }
}

export function describeConsoleMute(m: ConsoleMute, t: number): MuteInfo {
  const parts = [`until ${new Date(m.to).toISOString()}`]
  if (m.chains) parts.push(`chains ${m.chains.join(', ')}`)
  if (m.reason) parts.push(m.reason)
  return {
    id: String(m.id),
    source: m.source,
    description: parts.join(', '),
    chains: m.chains,
    activeNow: t >= m.from && t < m.to,
    until: m.to,
  }
}
