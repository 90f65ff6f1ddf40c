/** A small line of recent values; gaps where there is no value (a failed poll). Fixed size, so
 * rows never change height. */
export function Sparkline({
  values,
  width = 96,
  height = 18,
  tone = 'info',
  label,
}: {
  values: (number | null)[]
  width?: number
  height?: number
  tone?: 'info' | 'warn' | 'good'
  label: string
}) {
  const present = values.filter((v): v is number => v !== null)
  const max = Math.max(...present, 0)
  const step = values.length > 1 ? width / (values.length - 1) : width
  const y = (v: number) => (max > 0 ? height - 1 - (v / max) * (height - 2) : height - 1)
  const segments: string[] = []
  let current = ''
  values.forEach((v, i) => {
    if (v === null) {
      if (current) segments.push(current)
      current = ''
      return
    }
    current += `${current ? 'L' : 'M'}${(i * step).toFixed(1)},${y(v).toFixed(1)}`
  })
  if (current) segments.push(current)
  return (
    <svg
      className={`sparkline sparkline-${tone}`}
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={label}
    >
      <title>{label}</title>
      {segments.map((d, i) => (
        <path key={i} d={d} />
      ))}
    </svg>
  )
}
