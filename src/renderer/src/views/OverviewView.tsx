import { useEffect } from 'react'
import { glance, troubledSourceStates } from '../../../shared/glance'
import { useAppStore } from '../stores/app'
import { useAlertsStore } from '../stores/alerts'
import { useChainsStore } from '../stores/chains'
import { useEventsStore } from '../stores/events'
import { useSettingsStore } from '../stores/settings'
import { useForwardStore } from '../components/forward/store'
import { useSources } from '../components/sources/useSources'
import { StatusBadge } from '../components/Status'
import { FirstRun } from '../components/FirstRun'
import { ChainStrip } from '../components/chains/ChainStrip'
import { BackendStatus, StaleNote } from '../components/Liveness'
import { useStaleSince } from '../stores/link'
import { useNow } from '../hooks/useNow'
import { useViewReady } from '../hooks/useViewReady'
import { Fact, Tile } from '../components/overview/Tile'
import {
  ForwardTile,
  IncidentsTile,
  ListenerTile,
  PublicUrlTile,
  SourcesTile,
} from '../components/overview/tiles'

/** The glance page: at 1280×800 without scrolling it answers "is anything wrong, and where?".
 * One line (the same as the tray's), then a tile per part, each linking to its view, then the
 * chains with their head lag. */
export function OverviewView() {
  const error = useAppStore((s) => s.error)
  const stale = useStaleSince() !== null
  const now = useNow(true)
  const open = useAlertsStore((s) => s.open)
  const listener = useEventsStore((s) => s.listener)
  const forward = useForwardStore((s) => s.status)
  const publicUrl = useSettingsStore((s) => s.publicUrl)
  const chains = useChainsStore((s) => s.snapshot?.chains ?? null)
  const { sources } = useSources()
  useFollowGlanceFacts()
  const settings = useAppStore((s) => s.settings)
  // Every tile has its first answer (the app's own load failing shows as its error banner).
  useViewReady(
    'overview',
    (settings !== null || error !== null) &&
      open !== null &&
      listener !== null &&
      forward !== null &&
      sources !== null &&
      chains !== null,
  )
  const summary = glance({
    chains,
    openIncidents: open?.length ?? null,
    eventsPerMinute: listener?.activity.lastMinute ?? null,
    relayedPerMinute: listener?.activity.relayedLastMinute,
    listenerWithoutSecrets: listener
      ? listener.listening && (listener.endpoints.length === 0 || listener.secretsProblem !== null)
      : undefined,
    storageProblem: listener && listener.storage.state !== 'ok' ? listener.storage.state : null,
    failingTargets: forward?.targets.filter((t) => t.enabled && t.health === 'failing').length,
    troubledSources: sources?.filter((s) => troubledSourceStates.has(s.state)).length,
    listenerDown: listener ? !listener.listening : undefined,
    publicUrlUnreachable: publicUrl?.state === 'unreachable',
  })
  return (
    <div className="view overview" data-stale={stale || undefined}>
      <header className="view-head">
        <h1>Overview</h1>
        <StatusBadge
          tone={summary.tone}
          label={summary.tone === 'good' ? 'all well' : summary.tone === 'muted' ? 'waiting' : 'needs a look'}
        />
        <span className="overview-line" data-testid="glance-line">
          {summary.line}
        </span>
        <StaleNote />
      </header>
      {error && <p className="banner banner-bad">{error.message}</p>}
      <div className="tiles">
        <IncidentsTile open={open} now={now} />
        <ListenerTile status={listener} now={now} />
        <ForwardTile status={forward} now={now} />
        <SourcesTile sources={sources} now={now} />
        <PublicUrlTile state={publicUrl} now={now} />
        <ConsoleTile />
      </div>
      <ChainStrip />
      {/* Below the glance: what is wrong now comes first; the checklist hides once complete. */}
      <FirstRun />
    </div>
  )
}

/** Loads what the tiles show and follows its pushes while the Overview is open. */
function useFollowGlanceFacts() {
  useEffect(() => {
    void useAlertsStore.getState().loadOpen()
    void useEventsStore.getState().refreshListener()
    const offListener = useEventsStore.getState().followListener()
    const offForward = useForwardStore.getState().attach()
    const offPublicUrl = useSettingsStore.getState().followPublicUrl()
    return () => {
      offListener.dispose()
      offForward.dispose()
      offPublicUrl.dispose()
    }
  }, [])
}

function ConsoleTile() {
  const health = useAppStore((s) => s.health)
  const settings = useAppStore((s) => s.settings)
  const keychain = settings ? keychainBadge(settings.keychain) : null
  const tone = !settings ? 'muted' : keychain!.tone
  return (
    <Tile
      title="This console"
      href="#/settings"
      linkLabel="open Settings"
      tone={tone}
      label={!settings ? 'loading' : tone === 'good' ? 'ok' : 'keychain'}
    >
      <Fact label="back end">
        <BackendStatus health={health} liveLabel={`running ${health?.version ?? ''}`.trim()} />
      </Fact>
      <Fact label="keychain">
        {keychain ? <StatusBadge {...keychain} title={settings!.keychain.message} /> : '—'}
      </Fact>
      <Fact label="data dir">
        <span className="mono">{settings?.dataDir ?? '—'}</span>
      </Fact>
    </Tile>
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
