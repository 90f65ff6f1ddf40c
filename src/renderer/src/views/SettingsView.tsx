import { ForwardTargetsPanel } from '../components/forward/ForwardTargetsPanel'
import { useEffect } from 'react'
import type { ComponentType } from 'react'
import { useAppStore } from '../stores/app'
import { usePreferences } from '../stores/preferences'
import { useSettingsStore } from '../stores/settings'
import { useViewReady } from '../hooks/useViewReady'
import { StatusBadge } from '../components/Status'
import { clockTime } from '../components/Liveness'
import { KeysPanel } from '../components/payments/KeysPanel'
import { WebhookEndpointsPanel } from '../components/payments/WebhookEndpointsPanel'
import { ChannelsPanel } from '../components/alerts/ChannelsPanel'
import { SourcesPanel } from '../components/sources/SourcesPanel'
import { ConnectionPanel } from '../components/settings/ConnectionPanel'
import { ChainsSettingsPanel } from '../components/settings/ChainsSettingsPanel'
import { ListenerSettingsPanel } from '../components/settings/ListenerSettingsPanel'
import { DoctorPanel } from '../components/settings/DoctorPanel'
import { StoragePanel } from '../components/settings/StoragePanel'

/** The panels of Settings, in order. A capability adds its own panel by appending an entry. */
export const settingsSections: { id: string; Panel: ComponentType }[] = [
  { id: 'where', Panel: WhereThingsAre },
  { id: 'doctor', Panel: DoctorPanel },
  { id: 'connection', Panel: ConnectionPanel },
  { id: 'keys', Panel: KeysPanel },
  { id: 'webhooks', Panel: WebhookEndpointsPanel },
  { id: 'listener', Panel: ListenerSettingsPanel },
  { id: 'chains', Panel: ChainsSettingsPanel },
  { id: 'forward', Panel: ForwardTargetsPanel },
  { id: 'sources', Panel: SourcesPanel },
  { id: 'alerts', Panel: ChannelsPanel },
  { id: 'storage', Panel: StoragePanel },
  { id: 'keychain', Panel: KeychainPanel },
  { id: 'browser', Panel: BrowserPanel },
  { id: 'effective', Panel: EffectiveConfig },
]

export function SettingsView() {
  const settings = useAppStore((s) => s.settings)
  useEffect(() => {
    const attached = useSettingsStore.getState().attach()
    return () => attached.dispose()
  }, [])
  useViewReady('settings', settings !== null)
  return (
    <div className="view">
      <header className="view-head">
        <h1>Settings</h1>
      </header>
      {settings ? (
        settingsSections.map(({ id, Panel }) => <Panel key={id} />)
      ) : (
        <p className="hint">Loading…</p>
      )}
    </div>
  )
}

function WhereThingsAre() {
  const settings = useAppStore((s) => s.settings)!
  return (
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
        <dt>Public URL</dt>
        <dd>
          <PublicUrlStatus />
        </dd>
      </dl>
    </section>
  )
}

/** The public URL's reachability, as last checked (every minute and after Connect). */
export function PublicUrlStatus() {
  const state = useSettingsStore((s) => s.publicUrl)
  if (!state) return <span className="hint">not checked yet</span>
  if (!state.url) return <span className="hint">{state.message}</span>
  return (
    <span data-testid="public-url-status">
      <span className="mono">{state.url}</span>{' '}
      <StatusBadge
        tone={state.state === 'reachable' ? 'good' : state.state === 'unreachable' ? 'bad' : 'muted'}
        label={state.state === 'reachable' ? 'reaches the listener' : state.state}
      />{' '}
      {state.checkedAt !== null && <span className="hint num">checked {clockTime(state.checkedAt)}</span>}
      {state.state !== 'reachable' && (
        <span className="wrap">
          {' '}
          {state.message} {state.fix}
        </span>
      )}
    </span>
  )
}

function KeychainPanel() {
  const settings = useAppStore((s) => s.settings)!
  return (
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
  )
}

function BrowserPanel() {
  const digitShortcuts = usePreferences((s) => s.digitShortcuts)
  const setDigitShortcuts = usePreferences((s) => s.setDigitShortcuts)
  return (
    <section className="panel" aria-label="This browser">
      <h2>This browser</h2>
      <label className="check">
        <input
          type="checkbox"
          checked={digitShortcuts}
          onChange={(e) => setDigitShortcuts(e.target.checked)}
        />
        Digit keys 1–6 open the views (when no field has focus)
      </label>
    </section>
  )
}

function EffectiveConfig() {
  const settings = useAppStore((s) => s.settings)!
  return (
    <section className="panel">
      <h2>Effective configuration</h2>
      <pre className="json" tabIndex={0} aria-label="Effective configuration JSON">
        {JSON.stringify(settings.config, null, 2)}
      </pre>
    </section>
  )
}
