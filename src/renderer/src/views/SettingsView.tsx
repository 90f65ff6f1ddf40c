import { ForwardTargetsPanel } from '../components/forward/ForwardTargetsPanel'
import { useAppStore } from '../stores/app'
import { usePreferences } from '../stores/preferences'
import { StatusBadge } from '../components/Status'
import { KeysPanel } from '../components/payments/KeysPanel'
import { WebhookEndpointsPanel } from '../components/payments/WebhookEndpointsPanel'
import { ChannelsPanel } from '../components/alerts/ChannelsPanel'
import { SourcesPanel } from '../components/sources/SourcesPanel'

export function SettingsView() {
  const settings = useAppStore((s) => s.settings)
  const digitShortcuts = usePreferences((s) => s.digitShortcuts)
  const setDigitShortcuts = usePreferences((s) => s.setDigitShortcuts)
  return (
    <div className="view">
      <header className="view-head">
        <h1>Settings</h1>
      </header>
      {settings ? (
        <>
          <section className="panel">
            <h2>Where things are</h2>
            <dl className="facts">
              <dt>Data dir</dt>
              <dd className="mono">{settings.dataDir}</dd>
              <dt>Config file</dt>
              <dd className="mono">{settings.configFile}</dd>
              <dt>Overlay</dt>
              <dd className="mono">{settings.overlayFile ?? 'none (pass --config FILE)'}</dd>
              <dt>Console</dt>
              <dd className="mono">{settings.consoleUrl ?? 'desktop window'}</dd>
              <dt>Webhook listener</dt>
              <dd className={settings.listenerUrl ? 'mono' : undefined}>
                {settings.listenerUrl ?? `not running: ${settings.listenerProblem ?? 'see the log'}`}
              </dd>
            </dl>
          </section>
          <section className="panel">
            <h2>Keychain</h2>
            <p>
              <StatusBadge
                tone={settings.keychain.reachable ? 'good' : 'bad'}
                label={settings.keychain.reachable ? 'reachable' : 'unreachable'}
              />{' '}
              {settings.keychain.message}
            </p>
          </section>
          <section className="panel" aria-label="This browser">
            <h2>This browser</h2>
            <label className="check">
              <input
                type="checkbox"
                checked={digitShortcuts}
                onChange={(e) => setDigitShortcuts(e.target.checked)}
              />
              Digit keys 1–5 open the views (when no field has focus)
            </label>
          </section>
          <KeysPanel />
          <WebhookEndpointsPanel />
          <ChannelsPanel />
          <SourcesPanel />
          <ForwardTargetsPanel />
          <section className="panel">
            <h2>Effective configuration</h2>
            <pre className="json" tabIndex={0} aria-label="Effective configuration JSON">
              {JSON.stringify(settings.config, null, 2)}
            </pre>
          </section>
        </>
      ) : (
        <p className="hint">Loading…</p>
      )}
    </div>
  )
}
