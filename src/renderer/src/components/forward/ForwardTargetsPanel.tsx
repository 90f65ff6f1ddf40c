import { useEffect, useState } from 'react'
import type { ForwardTargetConfig } from '../../../../shared/config'
import { backend } from '../../api'
import { StatusBadge } from '../Status'
import { useForwardStore } from './store'

const blank = {
  name: '',
  url: '',
  events: '',
  timeoutMs: '',
  concurrency: '',
  enabled: true,
}
type Draft = typeof blank

/** Settings: forward.targets.<name> — add, edit, remove (written through the config writer). */
export function ForwardTargetsPanel() {
  const status = useForwardStore((s) => s.status)
  const refresh = useForwardStore((s) => s.refreshStatus)
  const [draft, setDraft] = useState<Draft | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => void refresh(), [refresh])
  const targets = (status?.targets ?? []).filter((t) => !t.adhoc)

  async function save(name: string, target: ForwardTargetConfig | null) {
    const r = await backend().call('forward.targets.set', { name, target })
    if (!r.ok) return setError(r.error.message)
    setError(null)
    setDraft(null)
    await refresh()
  }

  function submit(d: Draft) {
    const events = d.events
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
    void save(d.name.trim(), {
      url: d.url.trim(),
      ...(events.length ? { events } : {}),
      ...(d.timeoutMs ? { timeoutMs: Number(d.timeoutMs) } : {}),
      ...(d.concurrency ? { concurrency: Number(d.concurrency) } : {}),
      enabled: d.enabled,
    })
  }

  return (
    <section className="panel" aria-label="Forward targets">
      <h2>Forward targets</h2>
      <p className="hint">
        Every verified event is forwarded to these URLs (your app), with retries; a target with a keychain
        secret
        <code> forward-secret:&lt;name&gt;</code> gets events re-signed with it, otherwise the service’s
        signature unchanged.
      </p>
      {error && <p className="banner banner-bad">{error}</p>}
      {status?.authorizationWarning && <p className="banner banner-warn">{status.authorizationWarning}</p>}
      {status?.authorizationTarget && (
        <p className="dim">
          Card authorizations are answered by <span className="mono">{status.authorizationTarget}</span>{' '}
          (forward.authorizationTarget); other subscribed targets get them once, as a notification.
        </p>
      )}
      {targets.length === 0 && <p className="dim">No forward target.</p>}
      {targets.length > 0 && (
        <table className="grid">
          <thead>
            <tr>
              <th>name</th>
              <th>url</th>
              <th>events</th>
              <th>signing</th>
              <th>state</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {targets.map((t) => (
              <tr key={t.name}>
                <td className="mono">{t.name}</td>
                <td className="mono">{t.url}</td>
                <td className="mono">{t.events.join(', ')}</td>
                <td>{t.signing}</td>
                <td>
                  <StatusBadge
                    tone={
                      t.health === 'ok'
                        ? 'good'
                        : t.health === 'failing' || t.health === 'stopped'
                          ? 'bad'
                          : 'muted'
                    }
                    label={t.health}
                  />
                </td>
                <td>
                  <button
                    onClick={() =>
                      setDraft({
                        name: t.name,
                        url: t.url,
                        events: t.events.join(', ') === '*' ? '' : t.events.join(', '),
                        timeoutMs: '',
                        concurrency: '',
                        enabled: t.enabled,
                      })
                    }
                  >
                    Edit
                  </button>{' '}
                  <button onClick={() => void save(t.name, null)}>Remove</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {draft === null ? (
        <button onClick={() => setDraft(blank)}>Add target…</button>
      ) : (
        <form
          className="forward-form"
          onSubmit={(e) => {
            e.preventDefault()
            submit(draft)
          }}
        >
          <label>
            name{' '}
            <input
              value={draft.name}
              onChange={(e) => setDraft({ ...draft, name: e.target.value })}
              required
            />
          </label>
          <label>
            url{' '}
            <input
              type="url"
              placeholder="http://localhost:3000/webhooks"
              value={draft.url}
              onChange={(e) => setDraft({ ...draft, url: e.target.value })}
              required
            />
          </label>
          <label>
            events{' '}
            <input
              value={draft.events}
              placeholder="all (or funding.*, card.created)"
              onChange={(e) => setDraft({ ...draft, events: e.target.value })}
            />
          </label>
          <label>
            timeout ms{' '}
            <input
              value={draft.timeoutMs}
              placeholder="10000"
              inputMode="numeric"
              onChange={(e) => setDraft({ ...draft, timeoutMs: e.target.value })}
            />
          </label>
          <label>
            concurrency{' '}
            <input
              value={draft.concurrency}
              placeholder="8"
              inputMode="numeric"
              onChange={(e) => setDraft({ ...draft, concurrency: e.target.value })}
            />
          </label>
          <label>
            <input
              type="checkbox"
              checked={draft.enabled}
              onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
            />{' '}
            enabled
          </label>
          <button className="primary" type="submit">
            Save
          </button>
          <button type="button" onClick={() => setDraft(null)}>
            Cancel
          </button>
        </form>
      )}
    </section>
  )
}
