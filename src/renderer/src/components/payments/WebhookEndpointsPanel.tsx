import { useShallow } from 'zustand/react/shallow'
import { useEffect, useState } from 'react'
import { checkHttpsUrl, descriptionLength, maxDescriptionLength } from '../../../../shared/payments/endpoints'
import type { EndpointPaths } from '../../../../shared/contract/payments'
import { confirmPaymentsWrite } from '../../effects'
import { usePaymentsStore } from '../../stores/payments'
import { StatusBadge } from '../Status'
import { EventPicker } from './EventPicker'
import { SecretOnce } from './SecretOnce'
import { formatClock } from '../../../../shared/time'

const time = (ms: number) => formatClock(ms, { millis: true })

/** Settings → webhook endpoints: list, create (secret shown once, kept in the keychain), delete,
 * "connect this console", and the list/delete paths the spec leaves open. */
export function WebhookEndpointsPanel() {
  const status = usePaymentsStore((s) => s.status)
  const endpoints = usePaymentsStore((s) => s.endpoints)
  const endpointsError = usePaymentsStore((s) => s.endpointsError)
  const endpointWriteError = usePaymentsStore((s) => s.endpointWriteError)
  const shownOnce = usePaymentsStore((s) => s.shownOnce)
  const dismissSecret = usePaymentsStore((s) => s.dismissSecret)
  const loadEndpoints = usePaymentsStore((s) => s.loadEndpoints)
  const deleteEndpoint = usePaymentsStore((s) => s.deleteEndpoint)
  const askDelete = (id: string) => {
    const confirmed = confirmPaymentsWrite(
      status,
      `Delete the webhook endpoint ${id} and remove its secret.`,
      `Delete the webhook endpoint ${id} and remove its secret from the keychain?`,
    )
    if (confirmed !== null) void deleteEndpoint(id, confirmed)
  }
  const ready = Boolean(status?.activeKey && status.apiBaseUrl)
  useEffect(() => {
    if (ready) void loadEndpoints()
  }, [ready, loadEndpoints])
  return (
    <section className="panel payments-panel" aria-label="Webhook endpoints">
      <header className="panel-head">
        <h2>Webhook endpoints</h2>
        <span className="spacer" />
        <button type="button" onClick={() => void loadEndpoints()} disabled={!ready}>
          Refresh
        </button>
      </header>
      {!ready && <p className="hint">Store an API key and set apiBaseUrl to manage endpoints.</p>}
      {endpointsError && <p className="banner banner-bad">{endpointsError.message}</p>}
      {endpoints && endpoints.length > 0 && (
        <table className="grid endpoints-table">
          <thead>
            <tr>
              <th>id</th>
              <th>status</th>
              <th>url</th>
              <th className="num">events</th>
              <th>secret</th>
              <th>created</th>
              <th>description</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {endpoints.map((e) => (
              <tr key={e.id}>
                <td className="mono" title={e.id}>
                  {e.id}
                </td>
                <td>
                  <StatusBadge
                    tone={e.status === 'active' ? 'good' : e.status ? 'warn' : 'muted'}
                    label={e.status ?? 'not given'}
                  />
                </td>
                <td className="mono" title={e.url ?? undefined}>
                  {e.url ?? '—'}
                </td>
                <td className="num" title={e.events.join('\n')}>
                  {e.events.length}
                </td>
                <td>
                  <StatusBadge
                    tone={e.secretInKeychain ? 'good' : 'warn'}
                    label={e.secretInKeychain ? 'in keychain' : 'not stored'}
                    title={
                      e.secretInKeychain
                        ? `webhook-secret:${e.id}`
                        : 'Deliveries to this endpoint cannot be verified here.'
                    }
                  />
                </td>
                <td className="mono" title={e.createdAt ?? undefined}>
                  {e.createdAt ?? '—'}
                </td>
                <td title={e.description ?? undefined}>{e.description ?? ''}</td>
                <td>
                  <button type="button" className="danger" onClick={() => askDelete(e.id)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {endpoints && endpoints.length === 0 && (
        <p className="hint">No endpoints registered for this business.</p>
      )}
      {endpointWriteError && (
        <p className="banner banner-bad" role="alert">
          {endpointWriteError.message}
        </p>
      )}
      {shownOnce && <SecretOnce shown={shownOnce} onDismiss={dismissSecret} />}
      {ready && (
        <div className="endpoint-forms">
          <CreateEndpointForm />
          <ConnectForm />
        </div>
      )}
      {status && (
        <EndpointPathsForm key={JSON.stringify(status.endpointPaths)} initial={status.endpointPaths} />
      )}
    </section>
  )
}

function CreateEndpointForm() {
  const createEndpoint = usePaymentsStore((s) => s.createEndpoint)
  const busy = usePaymentsStore((s) => s.busy)
  const status = usePaymentsStore((s) => s.status)
  const [url, setUrl] = useState('')
  const [events, setEvents] = useState<string[]>([])
  const [description, setDescription] = useState('')
  const urlCheck = url.trim() ? checkHttpsUrl(url) : null
  const length = descriptionLength(description)
  const valid = urlCheck?.ok === true && events.length > 0 && length <= maxDescriptionLength
  const submit = async () => {
    const confirmed = confirmPaymentsWrite(status, `Create a webhook endpoint for ${url.trim()}.`)
    if (confirmed === null) return
    const input = { url: url.trim(), events, description: description.trim() || undefined }
    if (await createEndpoint(input, confirmed)) {
      setUrl('')
      setDescription('')
      setEvents([])
    }
  }
  return (
    <form
      className="endpoint-form"
      aria-label="Create endpoint"
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
    >
      <h3>Create an endpoint</h3>
      <label className="field">
        <span>URL</span>
        <input
          aria-label="Endpoint URL"
          placeholder="https://…"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
      </label>
      {urlCheck && !urlCheck.ok && <p className="field-error">{urlCheck.error.message}</p>}
      <EventPicker value={events} onChange={setEvents} />
      <label className="field">
        <span>
          Description{' '}
          <span className={`num counter${length > maxDescriptionLength ? ' over' : ''}`} aria-live="polite">
            {length} / {maxDescriptionLength}
          </span>
        </span>
        <textarea
          aria-label="Description"
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
        />
      </label>
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy || !valid}>
          Create endpoint
        </button>
        <span className="hint">
          {events.length} event type{events.length === 1 ? '' : 's'} chosen
        </span>
      </div>
    </form>
  )
}

function ConnectForm() {
  const { connect, connected, busy, status } = usePaymentsStore(
    useShallow((s) => ({ connect: s.connect, connected: s.connected, busy: s.busy, status: s.status })),
  )
  const [publicUrl, setPublicUrl] = useState('')
  const [events, setEvents] = useState<string[]>([
    'funding.completed',
    'funding.failed',
    'payout.completed',
    'payout.failed',
  ])
  const urlCheck = publicUrl.trim() ? checkHttpsUrl(publicUrl) : null
  return (
    <form
      className="endpoint-form"
      aria-label="Connect this console"
      onSubmit={(e) => {
        e.preventDefault()
        const confirmed = confirmPaymentsWrite(
          status,
          `Register ${publicUrl.trim()} as a webhook endpoint for this console.`,
        )
        if (confirmed !== null) void connect({ publicUrl: publicUrl.trim(), events }, confirmed)
      }}
    >
      <h3>Connect this console</h3>
      <p className="hint">
        Give the public HTTPS address of a tunnel or reverse proxy that forwards to this console’s listener (
        <span className="mono">/webhooks</span>). watchdesk registers it, stores the secret in the keychain,
        then sends a signed test event to that address and reports success only when it arrives here.
      </p>
      <label className="field">
        <span>Public URL</span>
        <input
          aria-label="Public URL"
          placeholder="https://…/webhooks"
          value={publicUrl}
          onChange={(e) => setPublicUrl(e.target.value)}
        />
      </label>
      {urlCheck && !urlCheck.ok && <p className="field-error">{urlCheck.error.message}</p>}
      <EventPicker value={events} onChange={setEvents} />
      <div className="form-actions">
        <button
          type="submit"
          className="primary"
          disabled={busy || urlCheck?.ok !== true || events.length === 0}
        >
          Connect
        </button>
      </div>
      {connected && (
        <div
          className={`banner ${connected.outcome === 'arrived' ? 'banner-good' : 'banner-bad'}`}
          role="status"
          data-testid="connect-result"
          data-outcome={connected.outcome}
        >
          {connected.outcome === 'arrived' && connected.arrivedAt && connected.sentAt !== null ? (
            <>
              Test event <span className="mono">{connected.eventId}</span> arrived at{' '}
              <span className="num">{time(connected.arrivedAt)}</span> (
              <span className="num">{Math.max(0, connected.arrivedAt - connected.sentAt)}</span> ms after
              sending). {connected.message}
            </>
          ) : (
            <>
              <strong>Not connected.</strong> {connected.message}
            </>
          )}
          {connected.fix && <p>{connected.fix}</p>}
        </div>
      )}
    </form>
  )
}

function EndpointPathsForm({ initial }: { initial: EndpointPaths }) {
  const { setEndpointPaths, busy } = usePaymentsStore(
    useShallow((s) => ({ setEndpointPaths: s.setEndpointPaths, busy: s.busy })),
  )
  const [paths, setPaths] = useState(initial)
  return (
    <form
      className="inline-form"
      aria-label="Endpoint paths"
      onSubmit={(e) => {
        e.preventDefault()
        void setEndpointPaths(paths)
      }}
    >
      <span
        className="hint"
        title="The service publishes no list or delete path; the defaults are the common convention."
      >
        List and delete paths (the service publishes none):
      </span>
      <label>
        list GET{' '}
        <input
          aria-label="List path"
          value={paths.listPath}
          onChange={(e) => setPaths({ ...paths, listPath: e.target.value })}
          size={18}
        />
      </label>
      <label>
        delete DELETE{' '}
        <input
          aria-label="Delete path"
          value={paths.deletePath}
          onChange={(e) => setPaths({ ...paths, deletePath: e.target.value })}
          size={18}
        />
      </label>
      <label>
        ?
        <input
          aria-label="Delete parameter"
          value={paths.deleteParam}
          onChange={(e) => setPaths({ ...paths, deleteParam: e.target.value })}
          size={8}
        />
        =&lt;id&gt;
      </label>
      <button type="submit" disabled={busy}>
        Save paths
      </button>
    </form>
  )
}
