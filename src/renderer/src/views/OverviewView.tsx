import { useAppStore } from '../stores/app'
import { StatusBadge } from '../components/Status'
import { FirstRun } from '../components/FirstRun'
import { ChainStrip } from '../components/chains/ChainStrip'

export function OverviewView() {
  const { health, settings, error } = useAppStore()
  return (
    <div className="view">
      <header className="view-head">
        <h1>Overview</h1>
      </header>
      {error && <p className="banner banner-bad">{error.message}</p>}
      <FirstRun />
      <ChainStrip />
      <section className="panel">
        <h2>This console</h2>
        <dl className="facts">
          <dt>Back end</dt>
          <dd>
            {health ? (
              <StatusBadge tone="good" label="running" />
            ) : (
              <StatusBadge tone="muted" label="connecting" />
            )}
          </dd>
          <dt>Version</dt>
          <dd className="tabular">{health?.version ?? '—'}</dd>
          <dt>Keychain</dt>
          <dd>
            {settings ? (
              <StatusBadge
                tone={
                  settings.keychain.reachable
                    ? 'good'
                    : settings.keychain.backend === 'environment'
                      ? 'warn'
                      : 'bad'
                }
                label={
                  settings.keychain.reachable
                    ? 'reachable'
                    : settings.keychain.backend === 'environment'
                      ? 'environment'
                      : 'unreachable'
                }
                title={settings.keychain.message}
              />
            ) : (
              '—'
            )}
          </dd>
          <dt>Data dir</dt>
          <dd className="mono">{settings?.dataDir ?? '—'}</dd>
        </dl>
        {settings && !settings.keychain.reachable && <p className="hint">{settings.keychain.message}</p>}
      </section>
    </div>
  )
}
