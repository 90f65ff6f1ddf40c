import { useEffect, useState } from 'react'
import { backend } from '../../api'
import { useAlertsStore } from '../../stores/alerts'
import { StatusBadge } from '../Status'

/** Settings: the alert channels (targets masked, where the secret is) and "send test". */
export function ChannelsPanel() {
  const { channels, loadChannels } = useAlertsStore()
  const [results, setResults] = useState<Record<string, { ok: boolean; detail: string | null }>>({})
  useEffect(() => {
    void loadChannels()
  }, [loadChannels])
  const test = async (name: string) => {
    const r = await backend().call('alerts.test', { channel: name })
    const result = r.ok ? r.value.results[0]! : { ok: false, detail: r.error.message }
    setResults((prev) => ({ ...prev, [name]: result }))
  }
  return (
    <section className="panel">
      <h2>Alert channels</h2>
      {!channels ? (
        <p className="hint">Loading…</p>
      ) : channels.channels.length === 0 ? (
        <p className="hint">No channels: add one under alerts.channels in the config.</p>
      ) : (
        <table className="grid" aria-label="Alert channels">
          <thead>
            <tr>
              <th>Name</th>
              <th>Type</th>
              <th>Target</th>
              <th>Secret</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {channels.channels.map((c) => (
              <tr key={c.name}>
                <td>{c.name}</td>
                <td>{c.type}</td>
                <td className="mono">{c.target ?? '—'}</td>
                <td title={c.problem ?? undefined}>
                  <StatusBadge tone={c.secret === 'missing' ? 'bad' : 'good'} label={c.secret} />
                  {c.problem && <span className="dim"> {c.problem}</span>}
                </td>
                <td>
                  <button onClick={() => void test(c.name)} disabled={!c.enabled}>
                    Send test
                  </button>{' '}
                  {results[c.name] && (
                    <StatusBadge
                      tone={results[c.name]!.ok ? 'good' : 'bad'}
                      label={results[c.name]!.ok ? 'sent' : 'failed'}
                      title={results[c.name]!.detail ?? undefined}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
