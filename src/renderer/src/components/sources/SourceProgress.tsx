import type { SourceStatus } from '../../../../shared/contract/sources'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'
import { useSources } from './useSources'

/** Each state's word and tone (the Overview's tile uses the same). */
export const sourceStateLabels: Record<SourceStatus['state'], [string, Tone]> = {
  disabled: ['disabled', 'muted'],
  'no-token': ['no token', 'bad'],
  connecting: ['connecting', 'info'],
  'catching-up': ['catching up', 'info'],
  live: ['live', 'good'],
  unreachable: ['unreachable', 'bad'],
  refused: ['token refused', 'bad'],
  storage: ['cannot store', 'bad'],
}

const number = new Intl.NumberFormat('en-US')

/** One source's state in words and colour, and while it catches up how far it got. */
export function SourceProgress({ source }: { source: SourceStatus }) {
  const [label, tone] = sourceStateLabels[source.state]
  const total = source.remaining === null ? null : source.synced + source.remaining
  const fraction = total ? source.synced / total : null
  return (
    <span className="source-progress" aria-label={`source ${source.name}: ${label}`}>
      <StatusBadge tone={tone} label={label} title={source.problem ?? undefined} />
      {source.state === 'catching-up' && fraction !== null && (
        <>
          <progress max={1} value={fraction} aria-label={`catch-up of ${source.name}`} />
          <span className="num mono">
            {number.format(source.synced)} / {number.format(total ?? 0)}
          </span>
        </>
      )}
    </span>
  )
}

/** A strip above the Events table while any source catches up or is in trouble; nothing otherwise. */
export function SourcesStrip() {
  const { sources } = useSources()
  const shown = (sources ?? []).filter((s) => s.state !== 'live' && s.state !== 'disabled')
  if (shown.length === 0) return null
  return (
    <div className="sources-strip" role="status">
      {shown.map((s) => (
        <span key={s.name}>
          <span className="mono">{s.name}</span> <SourceProgress source={s} />
          {s.problem && <span className="hint"> {s.problem}</span>}
        </span>
      ))}
    </div>
  )
}
