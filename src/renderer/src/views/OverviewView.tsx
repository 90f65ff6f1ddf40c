import { useAppStore } from '../stores/app'
import { StatusBadge } from '../components/Status'
import { FirstRun } from '../components/FirstRun'
import { ChainStrip } from '../components/chains/ChainStrip'
import { BackendStatus, StaleNote } from '../components/Liveness'
import { useStaleSince } from '../stores/link'

export function OverviewView() {
  const health = useAppStore((s) => s.health)
  const settings = useAppStore((s) => s.settings)
  const error = useAppStore((s) => s.error)
  const stale = useStaleSince() !== null
  return (
    <div className="view">
      <header className="view-head">
        <h1>Overview</h1>
      </header>
      {error && <p className="banner banner-bad">{error.message}</p>}
      <FirstRun />
      <ChainStrip />
      <section className="panel" aria-label="This console" data-stale={stale || undefined}>
        <div className="panel-title">
          <h2>This console</h2>
          <StaleNote />
        </div>
        <dl className="facts">
          <dt>Back end</dt>
          <dd>
            <BackendStatus health={health} liveLabel="running" />
          </dd>
          <dt>Version</dt>
          <dd className="tabular">{health?.version ?? '—'}</dd>
          <dt>Keychain</dt>
          <dd>
            {settings ? (
              <StatusBadge {...keychainBadge(settings.keychain)} title={settings.keychain.message} />
            ) : (
              '—'
            )}
          </dd>
          <dt>Data dir</dt>
          <dd className="mono">{settings?.dataDir ?? '—'}</dd>
        </dl>
        {/* An unreachable keychain is an item of the first-run checklist, with its fix: said once, there. */}
        {settings && !settings.keychain.reachable && settings.keychain.backend === 'environment' && (
          <p className="hint">{settings.keychain.message}</p>
        )}
      </section>
    </div>
  )
}

/** Reachable, secrets from the environment only, or unreachable: one decision for tone and word. */
function keychainBadge(keychain: { reachable: boolean; backend: string }): {
  tone: 'good' | 'warn' | 'bad'
  label: string
} {
  if (keychain.reachable) return { tone: 'good', label: 'reachable' }
  if (keychain.backend === 'environment') return { tone: 'warn', label: 'environment' }
  return { tone: 'bad', label: 'unreachable' }
}
