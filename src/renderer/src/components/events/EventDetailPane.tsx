import { ForwardDetail } from '../forward/ForwardDetail'
import { ShapeDetail } from '../drift/DriftMarks'
import type { EventDetail, EventSummary } from '../../../../shared/contract/events'
import {
  attemptOfReceipt,
  attemptSchedule,
  formatEventDelay,
  eventTypeInfo,
  formatDuration,
  groupLabel,
  maxAttempts,
} from '../../../../shared/events'
import { StatusBadge } from '../Status'
import { formatDateTime, prettyBody } from './format'
import { Arrivals } from './Arrivals'

/** Everything about one event: when it was made and received, how often it came, and its JSON. */
export function EventDetailPane({
  summary,
  detail,
  onClose,
}: {
  summary: EventSummary
  detail: EventDetail | null
  onClose(): void
}) {
  const info = eventTypeInfo(summary.type)
  const delay =
    summary.createdAtMs === null
      ? null
      : formatEventDelay(summary.createdAt, summary.createdAtMs, summary.receivedAt)
  // Each recorded receipt placed on the attempt its time says it was, not on its count; the first
  // receipt is at least `deliveries - 1` attempts before the latest.
  const lastAttempt =
    summary.createdAtMs === null
      ? summary.deliveries
      : attemptOfReceipt(summary.createdAtMs, summary.lastDeliveryAt)
  const firstAttempt =
    summary.createdAtMs === null
      ? 1
      : Math.max(
          1,
          Math.min(
            attemptOfReceipt(summary.createdAtMs, summary.receivedAt),
            lastAttempt - summary.deliveries + 1,
          ),
        )
  return (
    <aside className="panel events-detail" aria-label="Event detail">
      <header className="events-detail-head">
        <h2>Event</h2>
        <span className="spacer" />
        <button onClick={onClose} aria-label="Close detail">
          Close
        </button>
      </header>
      <div className="events-detail-type mono">{summary.type}</div>
      <p className="hint">
        {info
          ? `${groupLabel(info.group)} · ${info.meaning}`
          : 'Unknown type: not one the service documents; stored as received.'}
      </p>
      {summary.fundingLine && <div className="events-funding num">{summary.fundingLine}</div>}
      <dl className="facts">
        <dt>Event id</dt>
        <dd className="mono">{summary.id}</dd>
        <dt>Data id</dt>
        <dd className="mono">{summary.dataId ?? '—'}</dd>
        <dt>Created</dt>
        <dd className="mono">{summary.createdAt}</dd>
        <dt>Received</dt>
        <dd className="mono">{formatDateTime(summary.receivedAt)}</dd>
        <dt>Delay</dt>
        <dd className="num-left">{delay === null ? 'created_at is not a date' : delay}</dd>
        <dt>Deliveries</dt>
        <dd>
          {summary.deliveries > 1 ? (
            <StatusBadge
              tone="warn"
              label={`${summary.deliveries} (last ${formatDateTime(summary.lastDeliveryAt)})`}
            />
          ) : (
            '1'
          )}
        </dd>
        <dt>Matched endpoint</dt>
        <dd className="mono">{summary.endpoint ?? '—'}</dd>
      </dl>
      <Arrivals arrivals={detail?.arrivals} />
      <ShapeDetail id={summary.id} />
      <ForwardDetail id={summary.id} body={detail?.body} />
      {summary.deliveries > 1 && summary.createdAtMs !== null && (
        <section aria-label="Retry schedule">
          <h2>Retry schedule</h2>
          <p className="hint">
            Received {summary.deliveries} times; the latest was attempt {lastAttempt} of at most {maxAttempts}
            . The service retries after 1 min, 5 min, 30 min, 2 h and 24 h until it gets a 200: earlier
            attempts found the listener down or unreachable, got an error, or their answer was lost. Expected
            times count from created_at; the first and the latest receipt sit on the attempts their times
            match (every arrival, with its verdict, is listed under Arrivals).
          </p>
          <table className="grid">
            <thead>
              <tr>
                <th>attempt</th>
                <th className="num">after</th>
                <th>expected at</th>
                <th>received</th>
              </tr>
            </thead>
            <tbody>
              {attemptSchedule(summary.createdAtMs, Math.max(summary.deliveries, lastAttempt)).map((a) => (
                <tr key={a.attempt}>
                  <td>{a.attempt === 1 ? 'first' : `retry ${a.attempt - 1}`}</td>
                  <td className="num">{a.delayMs === null ? '—' : formatDuration(a.delayMs)}</td>
                  <td className="mono">{formatDateTime(a.expectedAt)}</td>
                  <td className="mono">
                    {/* Only the first and the latest receipt are recorded, not each one between. */}
                    {a.attempt === firstAttempt
                      ? formatDateTime(summary.receivedAt)
                      : a.attempt === lastAttempt
                        ? formatDateTime(summary.lastDeliveryAt)
                        : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      {summary.conflict && (
        <>
          <p className="banner banner-bad" role="alert">
            Conflict: this id was redelivered {detail ? `${detail.conflicts} time(s) ` : ''}with a different
            body. The first body stays the event (under “Body as received”); the latest differing one is here.
          </p>
          <h2>Differing body (latest)</h2>
          <pre className="json" aria-label="Conflicting event JSON">
            {detail ? prettyBody(detail.conflictBody ?? '') : 'loading…'}
          </pre>
        </>
      )}
      <h2>Body as received</h2>
      <pre className="json" aria-label="Event JSON" tabIndex={0}>
        {detail ? prettyBody(detail.body) : 'loading…'}
      </pre>
    </aside>
  )
}
