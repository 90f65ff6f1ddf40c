import { EmptyState } from '../components/EmptyState'

export function EventsView() {
  return (
    <div className="view">
      <header className="view-head">
        <h1>Events</h1>
      </header>
      <EmptyState title="No webhook events yet">
        <p>
          Signed webhooks from the service arrive at the listener on <code>http://127.0.0.1:7421/webhooks</code>. Add the
          endpoint's <code>whsec_…</code> secret in Settings (or <code>WATCHDESK_WEBHOOK_SECRETS</code> in serve mode) and point
          a tunnel or reverse proxy at the listener.
        </p>
      </EmptyState>
    </div>
  )
}
