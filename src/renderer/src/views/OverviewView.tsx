import { useEffect } from 'react'
import type { ClockStatus } from '../../../shared/contract/clock'
import { glance, troubledSourceStates } from '../../../shared/glance'
import { useAppStore } from '../stores/app'
import { useAlertsStore } from '../stores/alerts'
import { useChainsStore } from '../stores/chains'
import { useEventsStore } from '../stores/events'
import { useSettingsStore } from '../stores/settings'
import { useReplayStore } from '../stores/replay'
import { useForwardStore } from '../components/forward/store'
import { useSources } from '../components/sources/useSources'
import { StatusBadge } from '../components/Status'
import { storageBadge } from '../components/StorageStatus'
import type { Tone } from '../components/Status'
import { FirstRun } from '../components/FirstRun'
import { ChainStrip } from '../components/chains/ChainStrip'
import { BackendStatus, StaleNote } from '../components/Liveness'
import { useStaleSince } from '../stores/link'
import { useNow } from '../hooks/useNow'
import { useClockStore } from '../stores/clock'
import { ClockFact, clockBadge } from '../components/clock/ClockTile'
import { useViewReady } from '../hooks/useViewReady'
import { Fact, Tile } from '../components/overview/Tile'
import { ShapesTile } from '../components/drift/DriftMarks'
import { useDriftStore } from '../components/drift/store'
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
  const replay = useReplayStore((s) => s.status)
  const chains = useChainsStore((s) => s.snapshot?.chains ?? null)
  const { sources } = useSources()
  const clock = useClockStore((s) => s.status)
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
    suspectedReplays: replay?.lastDay,
    clockOffSeconds: clock?.state === 'off' ? clock.offsetSeconds : null,
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
        <ListenerTile status={listener} now={now} replay={replay} />
        <ForwardTile status={forward} now={now} />
        <SourcesTile sources={sources} now={now} />
        <PublicUrlTile state={publicUrl} now={now} />
        <ShapesTile now={now} />
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
    void useAlertsStore.getState().ensureOpen()
    void useEventsStore.getState().refreshListener()
    void useReplayStore.getState().load()
    const offListener = useEventsStore.getState().followListener()
    const offForward = useForwardStore.getState().attach()
    const offPublicUrl = useSettingsStore.getState().followPublicUrl()
    const offDrift = useDriftStore.getState().attach()
    return () => {
      offDrift.dispose()
      offListener.dispose()
      offForward.dispose()
      offPublicUrl.dispose()
    }
  }, [])
}

function ConsoleTile() {
  const health = useAppStore((s) => s.health)
  const settings = useAppStore((s) => s.settings)
  const clock = useClockStore((s) => s.status)
  // The same storage status the headline reads (the listener's, followed while here).
  const storage = useEventsStore((s) => s.listener?.storage ?? null)
  const keychain = settings ? keychainBadge(settings.keychain) : null
  const disk: Badge | null = storage ? (storageBadge(storage) ?? { tone: 'good', label: 'ok' }) : null
  const badge: Badge = !settings ? { tone: 'muted', label: 'loading' } : consoleBadge(keychain!, disk, clock)
  return (
    <Tile
      title="This console"
      href="#/settings"
      linkLabel="open Settings"
      tone={badge.tone}
      label={badge.label}
    >
      <Fact label="back end">
        <BackendStatus health={health} liveLabel={`running ${health?.version ?? ''}`.trim()} />
      </Fact>
      <Fact label="keychain">
        {keychain ? <StatusBadge {...keychain} title={settings!.keychain.message} /> : '—'}
      </Fact>
      <Fact label="data dir">
        <span className="mono">{settings?.dataDir ?? '—'}</span>
        {disk && (
          <>
            {' '}
            <StatusBadge {...disk} />
          </>
        )}
      </Fact>
      <ClockFact status={clock} />
    </Tile>
  )
}

type Badge = { tone: Tone; label: string; title?: string }

/** The tile's word and colour: the worst of its parts, named (a database that cannot commit
 * first: webhooks are answered 503 meanwhile). The clock counts only when two references agree
 * it is off. */
function consoleBadge(keychain: Badge, disk: Badge | null, clock: ClockStatus | null): Badge {
  if (disk?.tone === 'bad') return { tone: 'bad', label: disk.label }
  if (keychain.tone !== 'good') return { tone: keychain.tone, label: 'keychain' }
  if (disk?.tone === 'warn') return { tone: 'warn', label: disk.label }
  if (clock?.state === 'off') return { tone: clockBadge(clock).tone, label: 'clock' }
  return { tone: 'good', label: 'ok' }
}

/** Reachable, secrets from the environment only, or unreachable: one decision for tone and word. */
function keychainBadge(keychain: { reachable: boolean; backend: string }): Badge {
  if (keychain.reachable) return { tone: 'good', label: 'reachable' }
  if (keychain.backend === 'environment') return { tone: 'warn', label: 'environment' }
  return { tone: 'bad', label: 'unreachable' }
}
