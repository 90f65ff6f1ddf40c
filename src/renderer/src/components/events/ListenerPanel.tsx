import { useState } from 'react'
import type { ListenerStatus } from '../../../../shared/contract/events'
import { authorizationDeadlineMs, outageExpectation } from '../../../../shared/events'
import { StatusBadge } from '../Status'
import { StorageStatus } from '../StorageStatus'
import { StaleNote } from '../Liveness'
import { useStaleSince } from '../../stores/link'
import { formatCount, formatDateTime } from './format'
import { formatDateTime as formatPoint, formatDuration, formatMoment } from '../../../../shared/time'
import { useSourcesStore } from '../../stores/sources'
import { useNow } from '../../hooks/useNow'

const ms = (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} ms`)

/** The listener at a glance: where it listens, what it accepted and refused, how fast it answers. */
export function ListenerPanel({ status }: { status: ListenerStatus | null }) {
  const [open, setOpen] = useState<'rejections' | 'outages' | null>(null)
  const stale = useStaleSince() !== null
  // The day of an outage is left out when it is today (the page's day is close enough for that).
  const now = useNow(false)
  const synced = useSourcesStore((s) =>
    s.sources && s.sources.length > 0 ? s.sources.reduce((sum, source) => sum + source.synced, 0) : null,
  )
  if (!status) return <section className="panel events-listener">Listener: loading…</section>
  const authMax = status.authorizationLatency.maxMs
  const lastOutage = status.outages[0]
  return (
    <section className="panel events-listener" aria-label="Webhook listener" data-stale={stale || undefined}>
      <div className="events-listener-line">
        {status.listening ? (
          <StatusBadge
            tone={status.secretsProblem ? 'warn' : 'good'}
            label={status.secretsProblem ? 'listening, no secret' : 'listening'}
            title={status.secretsProblem ?? undefined}
          />
        ) : (
          <StatusBadge tone="bad" label="not listening" title={status.problem ?? undefined} />
        )}
        {status.url && <code>{status.url}/webhooks</code>}
        <span className="dim" title={status.endpoints.join(', ') || 'no webhook secret'}>
          {status.endpoints.length} secret{status.endpoints.length === 1 ? '' : 's'}
          {status.endpoints.length ? `: ${status.endpoints.join(', ')}` : ''}
        </span>
        <span className="spacer" />
        <StaleNote />
        <span className="stat" title="New events this listener stored since the console started">
          received here <b className="num">{formatCount(status.accepted)}</b>
        </span>
        {synced !== null && (
          <span className="stat" title="Events stored from the relay sources since the console started">
            synced from relays <b className="num">{formatCount(synced)}</b>
          </span>
        )}
        <span className="stat">
          duplicates <b className="num">{formatCount(status.duplicates)}</b>
        </span>
        <span
          className="stat"
          title="Redeliveries of a known id with a different body (the first body is kept)"
        >
          conflicts{' '}
          {status.conflicts ? (
            <StatusBadge tone="bad" label={formatCount(status.conflicts)} />
          ) : (
            <b className="num">0</b>
          )}
        </span>
        <StorageStatus status={status.storage} />
        <button
          className={status.rejected ? 'stat-button bad' : 'stat-button'}
          onClick={() => setOpen(open === 'rejections' ? null : 'rejections')}
        >
          rejected <b className="num">{formatCount(status.rejected)}</b>
        </button>
        <span className="stat" title="Answer latency over the last 1,000 deliveries">
          answered in p50 <b className="num">{ms(status.latency.p50Ms)}</b> p99{' '}
          <b className="num">{ms(status.latency.p99Ms)}</b>
        </span>
        <span className="stat" title="card.authorization.request must be answered within 2 s">
          {authMax === null ? (
            'no card authorization yet'
          ) : (
            <>
              slowest card authorization{' '}
              <StatusBadge
                tone={
                  authMax < authorizationDeadlineMs / 4
                    ? 'good'
                    : authMax < authorizationDeadlineMs
                      ? 'warn'
                      : 'bad'
                }
                label={ms(authMax)}
              />
            </>
          )}
        </span>
        <button className="stat-button" onClick={() => setOpen(open === 'outages' ? null : 'outages')}>
          {lastOutage
            ? `listener was down ${formatDuration(lastOutage.to - lastOutage.from)} at ${formatMoment(lastOutage.from, now)}`
            : 'no outage recorded'}
        </button>
      </div>
      {!status.listening && (
        <p className="banner banner-bad" role="alert">
          The webhook listener is not running, so no webhook is received; stored events stay here.{' '}
          {status.problem}
        </p>
      )}
      <StorageStatus status={status.storage} banner />
      {status.secretsProblem && <p className="banner banner-warn">{status.secretsProblem}</p>}
      {open === 'rejections' && <Rejections status={status} />}
      {open === 'outages' && <Outages status={status} />}
    </section>
  )
}

function Rejections({ status }: { status: ListenerStatus }) {
  if (status.recentRejections.length === 0) return <p className="hint">No delivery has been refused.</p>
  return (
    <table className="grid" aria-label="Refused deliveries">
      <thead>
        <tr>
          <th>time</th>
          <th className="num">status</th>
          <th>reason</th>
          <th>path</th>
          <th className="num">bytes</th>
          <th>from</th>
        </tr>
      </thead>
      <tbody>
        {status.recentRejections.map((r, i) => (
          <tr key={`${r.at}-${i}`}>
            <td className="mono">{formatDateTime(r.at)}</td>
            <td className="num">{r.status}</td>
            <td>{r.reason}</td>
            <td className="mono">{r.path}</td>
            <td className="num">{formatCount(r.size)}</td>
            <td className="mono">{r.remote}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** While the listener was down, the service kept retrying on the 6.2 schedule: what comes back, when. */
function Outages({ status }: { status: ListenerStatus }) {
  if (status.outages.length === 0) {
    return (
      <p className="hint">The listener has not been down between runs (gaps shorter than 2 s are ignored).</p>
    )
  }
  return (
    <div className="events-outages">
      {status.outages.slice(0, 3).map((outage) => {
        const expectation = outageExpectation(outage.from, outage.to)
        return (
          <section key={outage.from} aria-label="Expected redeliveries">
            <h2>
              Down {formatPoint(outage.from)} → {formatPoint(outage.to)} (
              {formatDuration(outage.to - outage.from)})
            </h2>
            <table className="grid">
              <thead>
                <tr>
                  <th>events first sent</th>
                  <th>come back as</th>
                  <th>expected between</th>
                </tr>
              </thead>
              <tbody>
                {expectation.redeliveries.map((r) => (
                  <tr key={r.retry}>
                    <td className="mono">
                      {formatPoint(r.sentFrom)} – {formatPoint(r.sentTo)}
                    </td>
                    <td>retry {r.retry}</td>
                    <td className="mono">
                      {formatPoint(r.arriveFrom)} – {formatPoint(r.arriveTo)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="hint">
              {expectation.allArriveBy !== null &&
                `Everything sent during the outage should be back by ${formatPoint(expectation.allArriveBy)}. `}
              {expectation.failedIfSentBefore !== null &&
                `Events first sent before ${formatPoint(expectation.failedIfSentBefore)} used all 5 retries while the listener was down: the service marked them failed; retry them from its dashboard.`}
            </p>
          </section>
        )
      })}
    </div>
  )
}
