import { ForwardStateMark } from '../forward/ForwardStateMark'
import { useEffect, useRef, useState } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import type { EventSummary } from '../../../../shared/contract/events'
import { formatEventDelay, groupLabel } from '../../../../shared/events'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'
import { gridTarget } from '../grid'
import { formatClock, formatDate } from '../../../../shared/time'
import { ShapeMark } from '../drift/DriftMarks'

const rowHeight = 26

const groupTone = (e: EventSummary): Tone =>
  e.group === 'unknown' ? 'muted' : /\.failed$|\.rejected$|\.flagged$/.test(e.type) ? 'bad' : 'info'

/** The events list, virtualized: only the visible rows are in the DOM, pages load on scroll. */
export function EventTable(props: {
  rows: EventSummary[]
  hasMore: boolean
  selectedId: string | null
  onSelect(id: string): void
  onNearEnd(): void
  onScrolledTop(atTop: boolean): void
  /** Without forward targets the forward column has nothing to say: its track shrinks to nothing. */
  showForward?: boolean
  /** Without relay sources every row is local: the source column shrinks to nothing. */
  showSource?: boolean
}) {
  const { rows, hasMore, selectedId, onSelect, onNearEnd, onScrolledTop } = props
  const scrollRef = useRef<HTMLDivElement>(null)
  // eslint-disable-next-line react-hooks/incompatible-library -- the virtualizer is meant to be used this way
  const virtualizer = useVirtualizer({
    count: rows.length + (hasMore ? 1 : 0),
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 12,
    getItemKey: (i) => rows[i]?.id ?? 'more',
  })
  const items = virtualizer.getVirtualItems()
  const lastIndex = items.at(-1)?.index ?? 0
  // Roving focus: one row is in the tab order; arrows move it, scrolling the virtual list as needed.
  const [focusIndex, setFocusIndex] = useState(0)
  const tabbable = Math.min(focusIndex, Math.max(0, rows.length - 1))
  const moveFocus = (index: number) => {
    setFocusIndex(index)
    virtualizer.scrollToIndex(index, { align: 'auto' })
    requestAnimationFrame(() =>
      scrollRef.current?.querySelector<HTMLElement>(`[data-row-index="${index}"]`)?.focus(),
    )
  }
  useEffect(() => {
    if (hasMore && lastIndex >= rows.length - 40) onNearEnd()
  }, [hasMore, lastIndex, rows.length, onNearEnd])

  return (
    <div
      className="events-table"
      data-forward={props.showForward === false ? 'off' : undefined}
      data-source={props.showSource === false ? 'off' : undefined}
      role="grid"
      aria-label="Events"
      aria-rowcount={rows.length + 1}
      onKeyDown={(e) => {
        const row = (e.target as HTMLElement).closest<HTMLElement>('[data-row-index]')
        const index = row ? Number(row.dataset.rowIndex) : -1
        if (e.key === 'Enter' && rows[index]) {
          e.preventDefault()
          onSelect(rows[index].id)
          return
        }
        const next = gridTarget(e.key, index, rows.length, 20)
        if (next === null) return
        e.preventDefault()
        moveFocus(next)
      }}
    >
      <div className="events-row events-head" role="row" aria-rowindex={1}>
        {columns.map((c) => (
          <span key={c.label} role="columnheader" className={c.className} title={c.title}>
            {c.label}
          </span>
        ))}
      </div>
      <div
        className="events-scroll"
        ref={scrollRef}
        onScroll={(e) => onScrolledTop((e.target as HTMLDivElement).scrollTop < rowHeight)}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const event = rows[item.index]
            if (!event) {
              return (
                <div
                  key="more"
                  role="row"
                  className="events-row events-more"
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  <span role="gridcell">loading older events…</span>
                </div>
              )
            }
            const delay =
              event.createdAtMs === null
                ? null
                : formatEventDelay(event.createdAt, event.createdAtMs, event.receivedAt)
            return (
              <div
                key={event.id}
                role="row"
                aria-rowindex={item.index + 2}
                tabIndex={item.index === tabbable ? 0 : -1}
                aria-selected={event.id === selectedId}
                data-event-id={event.id}
                data-row-index={item.index}
                className="events-row"
                style={{ transform: `translateY(${item.start}px)` }}
                onClick={() => onSelect(event.id)}
                onFocus={() => setFocusIndex(item.index)}
              >
                <span role="gridcell" className="mono">
                  <ReceivedAt ms={event.receivedAt} />
                </span>
                <span role="gridcell" className="mono" title={event.type}>
                  {/* First, so it stays visible when the detail pane narrows the column. */}
                  <ShapeMark id={event.id} />
                  {event.type}
                </span>
                <span role="gridcell" className="col-fwd">
                  <ForwardStateMark id={event.id} />
                </span>
                <span role="gridcell" className="col-group">
                  <StatusBadge
                    tone={groupTone(event)}
                    label={event.group === 'unknown' ? 'unknown type' : groupLabel(event.group)}
                  />
                </span>
                <span role="gridcell" className="mono col-id" title={event.id}>
                  {event.id}
                </span>
                <span role="gridcell" className={event.fundingLine ? 'col-detail' : 'col-detail mono dim'}>
                  {event.fundingLine ?? event.dataId ?? ''}
                </span>
                <span
                  role="gridcell"
                  className={event.source ? 'col-source mono' : 'col-source dim'}
                  title={
                    event.source ? `synced from the relay source ${event.source}` : 'this console’s listener'
                  }
                >
                  {event.source ?? 'local'}
                </span>
                <span role="gridcell" className="num col-delay">
                  {delay ?? '—'}
                </span>
                <span role="gridcell" className="num col-deliveries">
                  <Deliveries event={event} />
                </span>
              </div>
            )
          })}
        </div>
      </div>
    </div>
  )
}

/** The grid's columns, in order: each row's cells carry the same classes (col-*). */
const columns: { label: string; className?: string; title?: string }[] = [
  { label: 'received' },
  { label: 'type' },
  { label: 'forward', className: 'col-fwd', title: 'Where the event stands with the forward targets' },
  { label: 'group', className: 'col-group' },
  { label: 'event id', className: 'col-id' },
  { label: 'detail', className: 'col-detail' },
  { label: 'source', className: 'col-source', title: 'The local listener, or the relay it was synced from' },
  { label: 'delay', className: 'num col-delay' },
  { label: 'deliveries', className: 'num col-deliveries' },
]

/** The date part can be hidden (the detail pane open at 1024 px) while the clock stays. */
function ReceivedAt({ ms }: { ms: number }) {
  return (
    <>
      <span className="date-part">{formatDate(ms)} </span>
      {formatClock(ms, { millis: true })}
    </>
  )
}

/** Deliveries, with a conflict marked here: this column stays when the detail pane is open. */
function Deliveries({ event }: { event: EventSummary }) {
  const times = `${event.deliveries} deliver${event.deliveries === 1 ? 'y' : 'ies'}`
  if (event.conflict)
    return (
      <StatusBadge
        tone="bad"
        label="conflict"
        title={`${times}; a redelivery came with a different body (the first body is kept)`}
      />
    )
  if (event.deliveries > 1)
    return (
      <StatusBadge
        tone="warn"
        label={String(event.deliveries)}
        title={`${times}: earlier attempts failed on our side`}
      />
    )
  return <>1</>
}
