import { useEffect, useState } from 'react'
import { backend } from '../../api'
import { useAlertsStore } from '../../stores/alerts'
import type { ChannelInfo } from '../../../../shared/contract/alerts'
import { InlineForm, TextField } from '../InlineForm'
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
        <p className="hint">
          No channels (the desktop channel was removed). Add one with{' '}
          <span className="mono">watchdesk alerts channel set NAME --type webhook</span>.
        </p>
      ) : (
        <table className="grid channels-table" aria-label="Alert channels">
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
                <td className="mono channel-target" title={c.target ?? undefined}>
                  {c.target ?? '—'}
                </td>
                <td className="channel-secret">
                  <StatusBadge tone={c.secret === 'missing' ? 'bad' : 'good'} label={c.secret} />
                  {c.problem && <span className="dim"> {c.problem}</span>}
                  {c.type !== 'desktop' && <SecretField channel={c} />}
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

/** A channel's URL (webhook, Slack) or SMTP password (email), typed in and sent to the keychain
 * (alert-channel:<name>); only the masked target comes back. */
function SecretField({ channel }: { channel: ChannelInfo }) {
  const loadChannels = useAlertsStore((s) => s.loadChannels)
  const [value, setValue] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const store = async () => {
    setBusy(true)
    const r = await backend().call('alerts.channels.secret', { name: channel.name, secret: value })
    setBusy(false)
    setProblem(r.ok ? null : r.error.message)
    if (r.ok) {
      setValue('')
      void loadChannels()
    }
  }
  return (
    <InlineForm onSubmit={() => void store()}>
      <TextField
        label={`Secret of ${channel.name}`}
        placeholder={channel.type === 'email' ? 'SMTP password' : 'https://…'}
        value={value}
        onChange={setValue}
        size={16}
        secret
      />
      <button type="submit" disabled={busy || !value.trim()}>
        Store
      </button>
      {problem && (
        <span className="field-error wrap" role="alert">
          {problem}
        </span>
      )}
    </InlineForm>
  )
}
