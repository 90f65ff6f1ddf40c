import { linkHash } from '../../../../shared/links'
import { formatAge, formatMoment } from '../../../../shared/time'
import { StatusBadge } from '../Status'
import { Fact, Tile } from '../overview/Tile'
import { useDriftStore } from './store'

/** In the Events table's type cell: this event was the first to show a change of its type's shape. */
export function ShapeMark({ id }: { id: string }) {
  const drift = useDriftStore((s) => s.byEvent[id])
  if (!drift) return null
  return (
    <>
      <StatusBadge
        tone={drift.acknowledged ? 'muted' : 'warn'}
        label="shape"
        title={`First event with a changed payload shape: ${drift.summary}${drift.acknowledged ? ' (acknowledged)' : ''}`}
      />{' '}
    </>
  )
}

/** In the event's detail pane: the changes it showed first, and the acknowledgement. */
export function ShapeDetail({ id }: { id: string }) {
  const drift = useDriftStore((s) => s.byEvent[id])
  const error = useDriftStore((s) => s.error)
  if (!drift) return null
  return (
    <section aria-label="Payload shape change">
      <h2>Payload shape changed</h2>
      <p
        className={drift.acknowledged ? 'hint' : 'banner banner-warn'}
        role={drift.acknowledged ? undefined : 'alert'}
      >
        The first {drift.type} event whose <span className="mono">data</span> differs from the {drift.type}{' '}
        events before it. Handlers that read these fields may break.
      </p>
      <ul className="shape-changes">
        {drift.changes.map((c) => (
          <li key={`${c.kind}:${c.path}`}>
            <span className="mono">{c.path === '' ? 'data' : c.path}</span>{' '}
            {c.kind === 'added'
              ? `added (${c.to.join(' | ')})`
              : c.kind === 'removed'
                ? `removed (was ${c.from.join(' | ')})`
                : `retyped ${c.from.join(' | ')} → ${c.to.join(' | ')}`}
          </li>
        ))}
      </ul>
      {drift.acknowledged ? (
        <p className="hint">Acknowledged (drift.acknowledged): it no longer warns.</p>
      ) : (
        <button onClick={() => void useDriftStore.getState().acknowledge(drift.id)}>
          Acknowledge: the handlers cope with it
        </button>
      )}
      {error && <p className="banner banner-bad">{error}</p>}
    </section>
  )
}

/** The Overview's tile: shape changes still warning, each linking to the event that showed it. */
export function ShapesTile({ now }: { now: number }) {
  const status = useDriftStore((s) => s.status)
  const title = 'Payload shapes'
  if (!status)
    return (
      <Tile title={title} href="#/events" linkLabel="open Events" tone="muted" label="loading">
        {null}
      </Tile>
    )
  const open = status.drifts.filter((d) => !d.acknowledged)
  const state = !status.enabled
    ? { tone: 'muted' as const, label: 'off' }
    : status.problem
      ? { tone: 'bad' as const, label: 'cannot save' }
      : open.length > 0
        ? { tone: 'warn' as const, label: `${open.length} changed` }
        : { tone: 'good' as const, label: 'unchanged' }
  const learning = status.types.filter((t) => t.learning).length
  return (
    <Tile title={title} href="#/events" linkLabel="open Events" {...state}>
      {status.problem && <p className="tile-problem">{status.problem}</p>}
      <ul className="tile-list">
        {open.slice(0, 2).map((d) => (
          <li key={d.id}>
            <a href={linkHash({ view: 'events', eventId: d.eventId })} title={d.summary}>
              {d.type}: {d.summary}
            </a>{' '}
            <span className="dim num">
              {formatMoment(d.at, now)} ({formatAge(d.at, now)})
            </span>
          </li>
        ))}
      </ul>
      {open.length > 2 && <span className="dim">and {open.length - 2} more</span>}
      <Fact label="types">
        <span className="num">{status.types.length}</span> watched
        {learning > 0 && <span className="dim"> · {learning} still learning</span>}
      </Fact>
    </Tile>
  )
}
