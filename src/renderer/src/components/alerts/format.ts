/** "4 min 12 s": the two largest units (the back end's recovery alerts say it the same way). */
export function fmtDuration(ms: number | null): string {
  if (ms === null) return '—'
  const s = Math.max(0, Math.round(ms / 1000))
  const d = Math.floor(s / 86_400)
  const h = Math.floor((s % 86_400) / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  if (d > 0) return `${d} d${h ? ` ${h} h` : ''}`
  if (h > 0) return `${h} h${m ? ` ${m} min` : ''}`
  if (m > 0) return `${m} min${sec ? ` ${sec} s` : ''}`
  return `${sec} s`
}

export const fmtTime = (t: number) =>
  new Date(t).toLocaleString('en-GB', {
    month: 'short',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  })
