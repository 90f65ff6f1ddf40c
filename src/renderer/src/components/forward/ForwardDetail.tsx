import { useEffect, useState } from 'react'
import type { EventForwarding } from '../../../../shared/contract/forward'
import { backend } from '../../api'
import { StatusBadge } from '../Status'
import { ReplayControl } from './ReplayControl'
import { stateLabel, stateTone, useForwardStore } from './store'
import { formatClock } from '../../../../shared/time'

const time = (ms: number) => formatClock(ms)

/** In the event's detail pane: its forward state per target, the attempts, "Replay to…", and an
 * editor for a one-off replay of a changed payload. */
export function ForwardDetail({ id, body }: { id: string; body: string | undefined }) {
  const [data, setData] = useState<EventForwarding | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [editing, setEditing] = useState<string | null>(null)
  const version = useForwardStore((s) => s.versions[id] ?? 0)
  useEffect(() => {
    let live = true
    void backend()
      .call('forward.event', { id })
      .then((r) => {
        if (!live) return
        if (r.ok) {
          setData(r.value)
          setError(null)
        } else setError(r.error.message)
      })
    return () => {
      live = false
    }
  }, [id, version])

  return (
    <section aria-label="Forwarding" className="forward-detail">
      <h2>Forwarding</h2>
      {error && <p className="banner banner-bad">{error}</p>}
      {data && data.forwards.length === 0 && <p className="hint">No forward target takes this event type.</p>}
      {data && data.forwards.length > 0 && (
        <table className="grid">
          <thead>
            <tr>
              <th>target</th>
              <th>state</th>
              <th className="num">attempts</th>
              <th>next</th>
            </tr>
          </thead>
          <tbody>
            {data.forwards.map((f, i) => (
              <tr key={i}>
                <td className="mono">
                  {f.target}
                  {f.edited ? ' (edited)' : f.replay ? ' (replay)' : ''}
                </td>
                <td>
                  <StatusBadge
                    tone={stateTone[f.state]}
                    label={stateLabel[f.state]}
                    title={f.lastError ?? undefined}
                  />
                </td>
                <td className="num">{f.attempts}</td>
                <td className="mono">{f.dueAt ? time(f.dueAt) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data && data.attempts.length > 0 && (
        <table className="grid" aria-label="Attempts">
          <thead>
            <tr>
              <th>at</th>
              <th>target</th>
              <th className="num">#</th>
              <th className="num">status</th>
              <th className="num">ms</th>
              <th>answer / error</th>
            </tr>
          </thead>
          <tbody>
            {data.attempts.map((a, i) => (
              <tr key={i}>
                <td className="mono forward-time">{time(a.at)}</td>
                <td className="mono">{a.target}</td>
                <td className="num">{a.attempt}</td>
                <td className={a.status !== null && a.status < 300 ? 'num' : 'num bad'}>{a.status ?? '—'}</td>
                <td className="num">{a.latencyMs === null ? '—' : Math.round(a.latencyMs)}</td>
                <td className="mono forward-answer" title={a.response ?? undefined}>
                  {a.error ?? a.response ?? ''}
                  {a.edited ? ' (edited)' : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="forward-actions">
        <ReplayControl label="Replay to…" ids={[id]} editedBody={editing} />
        {editing === null ? (
          <button onClick={() => setEditing(body ?? '')} disabled={body === undefined}>
            Edit payload…
          </button>
        ) : (
          <button onClick={() => setEditing(null)}>Discard edit</button>
        )}
      </div>
      {editing !== null && (
        <>
          <p className="hint">
            The edited body is sent once, marked as edited (X-Watchdesk-Edited), signed with the target’s own
            secret or unsigned.
          </p>
          <textarea
            aria-label="Edited payload"
            className="mono forward-editor"
            value={editing}
            onChange={(e) => setEditing(e.target.value)}
            spellCheck={false}
            rows={10}
          />
        </>
      )}
    </section>
  )
}
