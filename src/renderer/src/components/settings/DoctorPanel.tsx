import { useState } from 'react'
import type { ResponseOf } from '../../../../shared/contract'
import type { ApiError } from '../../../../shared/result'
import { backend } from '../../api'
import { StatusBadge } from '../Status'

type Report = ResponseOf<'app.doctor'>
const tone = { ok: 'good', warn: 'warn', fail: 'bad' } as const

/** Settings → Doctor: the checks of `watchdesk doctor` (one contract method, app.doctor), run on
 * demand because some of them call the service, the nodes and the relays. */
export function DoctorPanel() {
  const [report, setReport] = useState<Report | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [running, setRunning] = useState(false)
  const run = () => {
    setRunning(true)
    void backend()
      .call('app.doctor', {})
      .then((answer) => {
        setRunning(false)
        setReport(answer.ok ? answer.value : null)
        setError(answer.ok ? null : answer.error)
      })
  }
  return (
    <section className="panel" aria-label="Doctor">
      <div className="first-run-head">
        <h2>Doctor</h2>
        <span className="hint">
          The checks of <code>watchdesk doctor</code>: Node, keychain, data dir, config, ports, payments API
          and key scopes, node access, public URL, relay sources.
        </span>
        <span className="spacer" />
        <button type="button" onClick={run} disabled={running}>
          {running ? 'Checking…' : report ? 'Check again' : 'Run the checks'}
        </button>
      </div>
      {error && <p className="banner banner-bad">The doctor could not run: {error.message}</p>}
      {report && (
        <ul className="first-run-list doctor-list">
          {report.checks.map((c, i) => (
            <li key={`${c.area}-${i}`} className="first-run-item">
              <span className="first-run-state">
                <StatusBadge
                  tone={c.blockedBy ? 'warn' : tone[c.state]}
                  label={c.blockedBy ? 'blocked' : c.state}
                />
              </span>
              <span className="first-run-label">{c.label}</span>
              <span className="first-run-detail">{c.detail}</span>
              {c.fix && <span className="first-run-fix mono">{c.fix}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
