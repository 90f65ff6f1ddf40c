import { EmptyState } from '../components/EmptyState'

export function ChainsView() {
  return (
    <div className="view">
      <header className="view-head">
        <h1>Chains</h1>
      </header>
      <EmptyState title="No node access configured">
        <p>
          Set <code>rpcBaseUrl</code> in the config and the project uid in the keychain (or <code>WATCHDESK_PROJECT_UID</code>)
          to watch the head lag of all twelve networks.
        </p>
      </EmptyState>
    </div>
  )
}
