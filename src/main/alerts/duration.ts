/** "4 min 12 s", "2 h 5 min", "3 d 4 h": the two largest units, for recovery alerts and the UI. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  const units: [string, number][] = [
    ['d', 86_400],
    ['h', 3_600],
    ['min', 60],
    ['s', 1],
  ]
  const parts: string[] = []
  let rest = s
  for (const [name, size] of units) {
    const n = Math.floor(rest / size)
    rest -= n * size
    if (n > 0 || (parts.length > 0 && parts.length < 2)) parts.push(`${n} ${name}`)
    if (parts.length === 2) break
  }
  const text = parts.filter((p) => !p.startsWith('0 ')).join(' ')
  return text || '0 s'
}
