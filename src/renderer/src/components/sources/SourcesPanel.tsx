import { useState } from 'react'
import { backend } from '../../api'
import { InlineForm, TextField } from '../InlineForm'
import { ListTable } from '../ListTable'
import { SourceProgress } from './SourceProgress'
import { useSources } from './useSources'
import { formatDateTime } from '../../../../shared/time'

const time = (ms: number | null) => (ms === null ? '—' : formatDateTime(ms))

/** Settings → Sources: relays this console follows. The token goes to the keychain and never
 * comes back to this window. */
export function SourcesPanel() {
  const { sources, reload } = useSources()
  const [name, setName] = useState('')
  const [url, setUrl] = useState('')
  const [token, setToken] = useState('')
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null)
  const [busy, setBusy] = useState(false)

  const run = async (action: () => Promise<{ ok: boolean; text: string }>) => {
    setBusy(true)
    try {
      setMessage(await action())
      await reload()
    } finally {
      setBusy(false)
    }
  }
  const add = () =>
    run(async () => {
      const added = await backend().call('sources.add', { name: name.trim(), url: url.trim(), token })
      if (!added.ok) return { ok: false, text: added.error.message }
      setName('')
      setUrl('')
      setToken('')
      return { ok: true, text: `Following ${added.value.name}.` }
    })
  const test = (target: { name: string } | { url: string; token: string }) =>
    run(async () => {
      const tested = await backend().call('sources.test', target)
      if (!tested.ok) return { ok: false, text: tested.error.message }
      return { ok: tested.value.ok, text: tested.value.message }
    })
  const remove = (source: string) =>
    run(async () => {
      const removed = await backend().call('sources.remove', { name: source })
      return removed.ok
        ? { ok: true, text: `Stopped following ${source}; its events stay.` }
        : { ok: false, text: removed.error.message }
    })

  return (
    <section className="panel" aria-label="Sources">
      <h2>Sources</h2>
      <p className="hint">
        Relays this console follows (watchdesk relay): it catches up on what it missed, then follows them
        live.
      </p>
      {message && <p className={`banner ${message.ok ? 'banner-good' : 'banner-bad'}`}>{message.text}</p>}
      <ListTable
        headers={[
          { label: 'name' },
          { label: 'relay' },
          { label: 'state' },
          { label: 'synced', numeric: true },
          { label: 'last contact' },
          { label: '' },
        ]}
        rows={(sources ?? []).map((s) => (
          <tr key={s.name}>
            <td className="mono">{s.name}</td>
            <td className="mono">{s.url}</td>
            <td title={s.problem ?? undefined}>
              <SourceProgress source={s} />
              {s.problem && <div className="hint">{s.problem}</div>}
              {s.notice && <div className="hint">{s.notice}</div>}
            </td>
            <td className="num">{s.synced.toLocaleString('en-US')}</td>
            <td className="num">{time(s.lastContactAt)}</td>
            <td>
              <button type="button" disabled={busy} onClick={() => void test({ name: s.name })}>
                Test
              </button>{' '}
              <button type="button" disabled={busy} onClick={() => void remove(s.name)}>
                Remove
              </button>
            </td>
          </tr>
        ))}
        empty="No sources yet."
      />
      <InlineForm onSubmit={() => void add()}>
        <TextField
          label="Source name"
          placeholder="name (e.g. office)"
          value={name}
          onChange={setName}
          size={14}
        />
        <TextField
          label="Relay URL"
          placeholder="https://relay.example:7422"
          value={url}
          onChange={setUrl}
          size={28}
        />
        <TextField
          label="Relay token"
          placeholder="wdr_…"
          value={token}
          onChange={setToken}
          size={20}
          secret
        />
        <button
          type="button"
          disabled={busy || !url || !token}
          onClick={() => void test({ url: url.trim(), token })}
        >
          Test
        </button>
        <button type="submit" disabled={busy || !name || !url || !token}>
          Add
        </button>
      </InlineForm>
    </section>
  )
}
