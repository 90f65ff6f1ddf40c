import { useEffect, useState } from 'react'
import type { Uptime } from '../../../../shared/contract/alerts'
import { backend } from '../../api'
import { describeUptime } from '../../../../shared/alerts/uptime'
import { formatDateTime } from '../../../../shared/time'

/** The last 24 hours hour by hour (green all up, amber some down, red mostly down, grey no polls)
 * and uptime over 24 h, 7 d and 30 d from the back end's hourly aggregate: only the windows the
 * data fills, then the period the data covers ("99.20 % over the last 17 min of data"). */
export function UptimeBar({ serviceId }: { serviceId: number }) {
  const [uptime, setUptime] = useState<Uptime | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  useEffect(() => {
    let live = true
    void backend()
      .call('alerts.uptime', { serviceId })
      .then((r) => {
        if (!live) return
        if (r.ok) setUptime(r.value)
        else setProblem(r.error.message)
      })
    return () => {
      live = false
    }
  }, [serviceId])
  if (problem) return <p className="hint">Uptime unavailable: {problem}</p>
  if (!uptime) return <p className="hint">Loading uptime…</p>
  return (
    <div className="uptime">
      <div className="uptime-bar" role="img" aria-label={`uptime: ${describeUptime(uptime)}`}>
        {uptime.hours.map((h) => {
          const ratio = h.polls === 0 ? null : h.up / h.polls
          const cls = ratio === null ? 'none' : ratio === 1 ? 'up' : ratio >= 0.5 ? 'part' : 'down'
          return (
            <span
              key={h.t}
              className={`uptime-beat uptime-${cls}`}
              title={`${formatDateTime(h.t).slice(0, 16)}: ${h.polls ? `${h.up}/${h.polls} polls up` : 'no polls'}`}
            />
          )
        })}
      </div>
      <dl className="facts facts-tight">
        <dt>Uptime</dt>
        <dd className="num">{describeUptime(uptime)}</dd>
      </dl>
    </div>
  )
}
