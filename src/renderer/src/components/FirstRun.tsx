import { useCallback, useEffect, useState } from 'react'
import type { ResponseOf } from '../../../shared/contract'
import type { ApiError } from '../../../shared/result'
import { backend } from '../api'
import { StatusBadge } from './Status'

type FirstRun = ResponseOf<'app.firstRun'>
const tone = { ok: 'good', warn: 'warn', missing: 'bad' } as const
const word = { ok: 'ready', warn: 'check', missing: 'missing' } as const
const load = () => backend().call('app.firstRun', {})

/** The first-run checklist: shown on the Overview until nothing is missing, each item with its fix. */
export function FirstRun() {
  const [result, setResult] = useState<FirstRun | null>(null)
  const [error, setError] = useState<ApiError | null>(null)
  const [checking, setChecking] = useState(false)
  const apply = useCallback((answer: Awaited<ReturnType<typeof load>>) => {
    setChecking(false)
    setResult(answer.ok ? answer.value : null)
    setError(answer.ok ? null : answer.error)
  }, [])
  useEffect(() => {
    let live = true
    void load().then((answer) => live && apply(answer))
    return () => {
      live = false
    }
  }, [apply])
  const check = () => {
    setChecking(true)
    void load().then(apply)
  }

  if (error) return <p className="banner banner-bad">First-run checks failed: {error.message}</p>
  if (!result || result.complete) return null
  return (
    <section className="panel first-run" aria-label="First run">
      <div className="first-run-head">
        <h2>First run</h2>
        <span className="hint">Until each item is ready, parts of the console stay empty.</span>
        <span className="spacer" />
        <button type="button" onClick={check} disabled={checking}>
          {checking ? 'Checking…' : 'Check again'}
        </button>
      </div>
      <ul className="first-run-list">
        {result.checks.map((c) => (
          <li key={c.id} className={`first-run-item first-run-${c.state}`}>
            <span className="first-run-state">
              {/* Blocked: the cause and its fix are on the blocking item, written once. */}
              <StatusBadge
                tone={c.blockedBy ? 'warn' : tone[c.state]}
                label={c.blockedBy ? 'blocked' : word[c.state]}
              />
            </span>
            <span className="first-run-label">{c.label}</span>
            <span className="first-run-detail">{c.blockedBy ? `blocked by: ${c.blockedBy}` : c.detail}</span>
            {c.fix && <span className="first-run-fix">Fix: {c.fix}</span>}
          </li>
        ))}
      </ul>
    </section>
  )
}
