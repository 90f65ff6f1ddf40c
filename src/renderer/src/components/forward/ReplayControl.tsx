import { useState } from 'react'
import type { EventFilter } from '../../../../shared/contract/events'
import { backend } from '../../api'
import { useForwardStore } from './store'

type Destination = { target: string } | { url: string }

/** Picks a configured target or a URL, then queues the events through the outbox. */
export function ReplayControl(props: {
  label: string
  ids?: string[]
  filter?: EventFilter
  count?: number
  /** The edited payload for a one-off replay, when the detail pane's editor is open. */
  editedBody?: string | null
}) {
  // The selector must return the same value for the same state: a fresh [] on every call (before
  // forward.status has arrived) makes React re-render without end (error #185, a blank page).
  const targets = (useForwardStore((s) => s.status?.targets) ?? noTargets).filter((t) => !t.adhoc)
  const [open, setOpen] = useState(false)
  const [choice, setChoice] = useState('')
  const [url, setUrl] = useState('')
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null)
  const destination = (): Destination => (choice ? { target: choice } : { url })

  async function send() {
    if (props.count !== undefined && props.count > 100 && !window.confirm(`Replay ${props.count} events?`))
      return
    const id = props.ids?.[0]
    const r =
      props.editedBody != null && id
        ? await backend().call('forward.replayEdited', {
            id,
            body: props.editedBody,
            destination: destination(),
          })
        : await backend().call('forward.replay', {
            ids: props.ids,
            filter: props.filter,
            destination: destination(),
          })
    setResult(
      r.ok
        ? { ok: true, text: `${r.value.queued.toLocaleString('en-US')} queued for ${r.value.target}` }
        : { ok: false, text: r.error.message },
    )
  }

  if (!open)
    return (
      <button onClick={() => setOpen(true)} disabled={props.count === 0}>
        {props.label}
      </button>
    )
  return (
    <span className="replay-control">
      <select aria-label="Replay destination" value={choice} onChange={(e) => setChoice(e.target.value)}>
        <option value="">a URL…</option>
        {targets.map((t) => (
          <option key={t.name} value={t.name}>
            {t.name}
          </option>
        ))}
      </select>
      {!choice && (
        <input
          aria-label="Replay URL"
          type="url"
          placeholder="http://localhost:3000/webhooks"
          required
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          spellCheck={false}
        />
      )}
      {/* An empty URL sends nothing: the example is a placeholder, never a value Replay would use. */}
      <button className="primary" onClick={() => void send()} disabled={!choice && url.trim() === ''}>
        Replay
      </button>
      <button onClick={() => (setOpen(false), setResult(null))}>Cancel</button>
      {result && <span className={result.ok ? 'dim' : 'bad'}>{result.text}</span>}
    </span>
  )
}

const noTargets: readonly never[] = []
