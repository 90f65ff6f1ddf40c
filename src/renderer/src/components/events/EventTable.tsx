import { ForwardStateMark } from '../forward/ForwardStateMark'
import { useEffect, useRef } from 'react'
import { useVirtualizer } from '@tanstack/react-virtual'
import type { EventSummary } from '../../../../shared/contract/events'
import { formatDuration, groupLabel } from '../../../../shared/events'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'
import { formatDateTime } from './format'

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
  useEffect(() => {
    if (hasMore && lastIndex >= rows.length - 40) onNearEnd()
  }, [hasMore, lastIndex, rows.length, onNearEnd])

  return (
    <div className="events-table" role="table" aria-label="Events" aria-rowcount={rows.length}>
      <div className="events-row events-head" role="row">
        <span role="columnheader">received</span>
        <span role="columnheader">type</span>
        <span role="columnheader" className="col-group">
          group
        </span>
        <span role="columnheader">event id</span>
        <span role="columnheader" className="col-detail">
          detail
        </span>
        <span role="columnheader" className="num">
          delay
        </span>
        <span role="columnheader" className="num">
          deliveries
        </span>
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
                  className="events-row events-more"
                  style={{ transform: `translateY(${item.start}px)` }}
                >
                  loading older events…
                </div>
              )
            }
            const delay = event.createdAtMs === null ? null : event.receivedAt - event.createdAtMs
            return (
              <div
                key={event.id}
                role="row"
                tabIndex={0}
                aria-selected={event.id === selectedId}
                data-event-id={event.id}
                className="events-row"
                style={{ transform: `translateY(${item.start}px)` }}
                onClick={() => onSelect(event.id)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') onSelect(event.id)
                }}
              >
                <span role="cell" className="mono">
                  {formatDateTime(event.receivedAt)}
                </span>
                <span role="cell" className="mono">
                  {event.type}
                  <ForwardStateMark id={event.id} />
                </span>
                <span role="cell" className="col-group">
                  <StatusBadge
                    tone={groupTone(event)}
                    label={event.group === 'unknown' ? 'unknown type' : groupLabel(event.group)}
                  />
                </span>
                <span role="cell" className="mono">
                  {event.id}
                </span>
                <span role="cell" className={event.fundingLine ? 'col-detail' : 'col-detail mono dim'}>
                  {event.fundingLine ?? event.dataId ?? ''}
                </span>
                <span role="cell" className="num">
                  {delay === null ? '—' : formatDuration(delay)}
                </span>
                <span role="cell" className="num">
                  {event.deliveries > 1 ? (
                    <StatusBadge
                      tone="warn"
                      label={String(event.deliveries)}
                      title="earlier attempts failed on our side"
                    />
                  ) : (
                    1
                  )}
                </span>
              </div>
            )
          })}
        </div>
      </div>
    </div>
  )
}
