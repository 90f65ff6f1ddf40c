import { EmptyState } from '../components/EmptyState'

export function WalletsView() {
  return (
    <div className="view">
      <header className="view-head">
        <h1>Wallets</h1>
      </header>
      <EmptyState title="No API key yet">
        <p>
          Add an API key (<code>sk_sandbox_…</code> or <code>sk_live_…</code>) in Settings and set <code>apiBaseUrl</code> to see
          the wallets of your business.
        </p>
      </EmptyState>
    </div>
  )
}
