import type { KeyboardEvent } from 'react'

/** Where a key moves focus in a grid of `count` rows from row `index` (-1: none focused yet), or
 * null when the key is not a movement. */
export function gridTarget(key: string, index: number, count: number, page = 10): number | null {
  if (count === 0) return null
  const last = count - 1
  switch (key) {
    case 'ArrowDown':
      return Math.min(last, index + 1)
    case 'ArrowUp':
      return Math.max(0, index - 1)
    case 'PageDown':
      return Math.min(last, Math.max(0, index) + page)
    case 'PageUp':
      return Math.max(0, index - page)
    case 'Home':
      return 0
    case 'End':
      return last
    default:
      return null
  }
}

/** Keyboard handling for a table of rows marked `data-grid-row` (all rendered): arrows, Page
 * Up/Down, Home/End move the focus, Enter (or Space) opens the focused row. */
export function onGridKeyDown(event: KeyboardEvent<HTMLElement>, open: (row: HTMLElement) => void): void {
  const rows = [...event.currentTarget.querySelectorAll<HTMLElement>('[data-grid-row]')]
  const current = (event.target as HTMLElement).closest<HTMLElement>('[data-grid-row]')
  const index = current ? rows.indexOf(current) : -1
  if ((event.key === 'Enter' || event.key === ' ') && current) {
    event.preventDefault()
    open(current)
    return
  }
  const next = gridTarget(event.key, index, rows.length)
  if (next === null) return
  event.preventDefault()
  rows[next]?.focus()
}

/** After a detail closes, focus goes back to the row that opened it (once React has drawn it). */
export function focusLater(selector: string): void {
  requestAnimationFrame(() => document.querySelector<HTMLElement>(selector)?.focus())
}
