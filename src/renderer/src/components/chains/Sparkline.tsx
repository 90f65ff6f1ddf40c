export function rangeOf(values: (number | null)[]): { lo: number; hi: number } {
  const present = values.filter((v): v is number => v !== null)
  return present.length === 0 ? { lo: 0, hi: 0 } : { lo: Math.min(...present), hi: Math.max(...present) }
}

const clock = (ms: number) =>
  new Date(ms).toLocaleTimeString('en-GB', { hour12: false, hour: '2-digit', minute: '2-digit' })

/** A sparkline with its scale: the highest and lowest value at its top and bottom, and the time
 * range it covers under it. */
export function ScaledSparkline({
  values,
  times,
  unit,
  format = (v) => String(Math.round(v * 10) / 10),
  ...rest
}: Parameters<typeof Sparkline>[0] & { times: number[]; unit: string; format?: (v: number) => string }) {
  const { lo, hi } = rangeOf(values)
  const any = values.some((v) => v !== null)
  return (
    <figure className="sparkline-scaled">
      <div className="sparkline-scale num" aria-hidden="true">
        <span data-testid="spark-max">{any ? `${format(hi)} ${unit}` : '—'}</span>
        <span data-testid="spark-min">{any ? `${format(lo)} ${unit}` : ''}</span>
      </div>
      <div>
        <Sparkline
          values={values}
          {...rest}
          label={`${rest.label}${any ? `, range ${format(lo)}–${format(hi)} ${unit}` : ''}`}
        />
        <figcaption className="hint num" data-testid="spark-range">
          {times.length > 1 ? `${clock(times[0]!)} – ${clock(times[times.length - 1]!)}` : 'no samples yet'}
        </figcaption>
      </div>
    </figure>
  )
}

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
  const { lo, hi } = rangeOf(values)
  const step = values.length > 1 ? width / (values.length - 1) : width
  // From the lowest value (bottom) to the highest (top), as the scale's labels say.
  const y = (v: number) => (hi > lo ? height - 1 - ((v - lo) / (hi - lo)) * (height - 2) : height / 2)
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
