import { useShallow } from 'zustand/react/shallow'
import { useEffect, useState } from 'react'
import { checkHttpsUrl, descriptionLength, maxDescriptionLength } from '../../../../shared/payments/endpoints'
import type { EndpointPaths } from '../../../../shared/contract/payments'
import { confirmPaymentsWrite } from '../../effects'
import { usePaymentsStore } from '../../stores/payments'
import type { PaymentsState } from '../../stores/payments'
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
      {ready && <CleanupEndpoints />}
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
        <span className="mono">/webhooks</span>). watchdesk first checks that the address reaches this
        listener, then registers it (or reuses the endpoint already registered for it), stores the secret in
        the keychain and sends a signed test event through it. Success only when that event arrives here; when
        it does not, the endpoint registered for the attempt is deleted again.
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
      {connected && <ConnectOutcome connected={connected} />}
    </form>
  )
}

function ConnectOutcome({ connected }: { connected: NonNullable<PaymentsState['connected']> }) {
  const t = connected.test
  const arrived = t.outcome === 'arrived'
  return (
    <div
      className={`banner ${arrived ? 'banner-good' : 'banner-bad'}`}
      role="status"
      data-testid="connect-result"
      data-outcome={t.outcome}
    >
      {arrived && t.arrivedAt && t.sentAt !== null ? (
        <>
          Test event <span className="mono">{t.eventId}</span> arrived at{' '}
          <span className="num">{time(t.arrivedAt)}</span> (
          <span className="num">{Math.max(0, t.arrivedAt - t.sentAt)}</span> ms after sending).{' '}
          {connected.reused && connected.endpoint && (
            <>
              The endpoint <span className="mono">{connected.endpoint.id}</span> already registered for this
              URL was reused.{' '}
            </>
          )}
          {t.message}
        </>
      ) : (
        <>
          <strong>Not connected.</strong> {t.message}
        </>
      )}
      {t.fix && <p>{t.fix}</p>}
      {connected.cleanup && <p data-testid="connect-cleanup">{connected.cleanup}</p>}
      {!arrived && connected.publicUrl && (
        <p className="hint">
          listener.publicUrl stays <span className="mono">{connected.publicUrl}</span>, the last verified
          address.
        </p>
      )}
    </div>
  )
}

/** "Clean up endpoints": what the service still sends to that this console no longer needs. */
function CleanupEndpoints() {
  const { stale, staleLoading, cleanupResult, loadStale, cleanup, busy, status } = usePaymentsStore(
    useShallow((s) => ({
      stale: s.stale,
      staleLoading: s.staleLoading,
      cleanupResult: s.cleanupResult,
      loadStale: s.loadStale,
      cleanup: s.cleanup,
      busy: s.busy,
      status: s.status,
    })),
  )
  const [chosen, setChosen] = useState<string[]>([])
  const toggle = (id: string) =>
    setChosen((prev) => (prev.includes(id) ? prev.filter((x) => x !== id) : [...prev, id]))
  const submit = () => {
    const confirmed = confirmPaymentsWrite(
      status,
      `Delete ${chosen.length} webhook endpoint(s) and their secrets.`,
      `Delete ${chosen.length} webhook endpoint(s) at the service and remove their secrets from the keychain?`,
    )
    if (confirmed === null) return
    void cleanup(chosen, confirmed).then(() => setChosen([]))
  }
  return (
    <section className="endpoint-cleanup" aria-label="Clean up endpoints">
      <div className="form-actions">
        <button
          type="button"
          onClick={() => {
            setChosen([])
            void loadStale()
          }}
          disabled={staleLoading}
        >
          {staleLoading ? 'Checking endpoints…' : 'Clean up endpoints'}
        </button>
        <span className="hint">
          Finds endpoints for this console’s earlier public URLs, duplicates, and URLs where nothing answers.
        </span>
      </div>
      {stale && stale.stale.length === 0 && (
        <p className="hint" role="status">
          Nothing to clean up: none of the {stale.total} endpoint(s) is a duplicate, an earlier URL of this
          console or unreachable.
        </p>
      )}
      {stale && stale.stale.length > 0 && (
        <>
          <table className="grid" aria-label="Endpoints to clean up">
            <thead>
              <tr>
                <th />
                <th>id</th>
                <th>url</th>
                <th>why</th>
              </tr>
            </thead>
            <tbody>
              {stale.stale.map((s) => (
                <tr key={s.endpoint.id}>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Delete ${s.endpoint.id}`}
                      checked={chosen.includes(s.endpoint.id)}
                      onChange={() => toggle(s.endpoint.id)}
                    />
                  </td>
                  <td className="mono">{s.endpoint.id}</td>
                  <td className="mono wrap">{s.endpoint.url ?? '—'}</td>
                  <td className="wrap">{s.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="form-actions">
            <button type="button" className="danger" disabled={busy || chosen.length === 0} onClick={submit}>
              Delete {chosen.length} chosen
            </button>
          </div>
        </>
      )}
      {cleanupResult && (
        <p className={`banner ${cleanupResult.failed.length ? 'banner-bad' : 'banner-good'}`} role="status">
          Deleted {cleanupResult.deleted.length} endpoint(s) with their secrets.
          {cleanupResult.failed.map((f) => ` ${f.id}: ${f.message}`).join('')}
        </p>
      )}
    </section>
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
