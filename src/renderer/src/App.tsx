import { useEffect, useState } from 'react'
import { backend } from './api'
import { followLink } from './deep-link'
import { routeFromHash, routes } from './routes'
import { useAppStore } from './stores/app'
import { usePreferences } from './stores/preferences'
import { BackendStatus, LinkBanner } from './components/Liveness'
import { LiveKeyBanner } from './components/payments/LiveKeyBanner'
import { RestartBanner } from './components/RestartBanner'
import { StorageStatus } from './components/StorageStatus'
import { ViewBoundary } from './components/ViewBoundary'
import { useBrowserNotifications } from './components/alerts/useBrowserNotifications'
import { useAlertsStore } from './stores/alerts'
import { useReadyView } from './hooks/useViewReady'
import { zoneLabel } from '../../shared/time'

function useHashRoute() {
  const [route, setRoute] = useState(() => routeFromHash(window.location.hash))
  useEffect(() => {
    const onHash = () => {
      setRoute(routeFromHash(window.location.hash))
      followLink(window.location.hash)
    }
    // A link that opened the console (an alert's) points at an item: open it once at start too.
    followLink(window.location.hash)
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, [])
  return route
}

/** The zone every time is written in, said once (the offset as of the page's load). */
const zone = zoneLabel(Date.now())

function useDigitShortcuts(enabled: boolean) {
  useEffect(() => {
    if (!enabled) return
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null
      if (event.altKey || event.ctrlKey || event.metaKey) return
      if (target && (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable)) return
      const route = routes.find((r) => r.key === event.key)
      if (route) window.location.hash = `#/${route.id}`
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [enabled])
}

export function App() {
  const route = useHashRoute()
  const health = useAppStore((s) => s.health)
  const load = useAppStore((s) => s.load)
  const digitShortcuts = usePreferences((s) => s.digitShortcuts)
  useDigitShortcuts(digitShortcuts)
  useBrowserNotifications()
  useEffect(() => {
    void load()
    // The Overview asks for them too as it opens (its effect runs first): one request serves both.
    void useAlertsStore.getState().ensureOpen()
  }, [load])
  const openIncidents = useAlertsStore((s) => s.open?.length ?? 0)
  const readyView = useReadyView((s) => s.view)
  const { View } = route
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Views">
        <div className="brand">watchdesk{health?.demo && <span className="demo-tag">demo</span>}</div>
        <ul>
          {routes.map((r) => (
            <li key={r.id}>
              <a
                href={`#/${r.id}`}
                aria-current={r.id === route.id ? 'page' : undefined}
                aria-keyshortcuts={digitShortcuts ? r.key : undefined}
              >
                <span>{r.label}</span>
                {r.id === 'alerts' && openIncidents > 0 && (
                  <span
                    className="nav-count"
                    title={`${openIncidents} open incident${openIncidents === 1 ? '' : 's'}`}
                  >
                    {openIncidents} open
                  </span>
                )}
                {digitShortcuts && (
                  <kbd title={`shortcut: press ${r.key}`} aria-hidden="true">
                    {r.key}
                  </kbd>
                )}
              </a>
            </li>
          ))}
        </ul>
        <div className="sidebar-foot">
          <BackendStatus health={health} />
          <StorageStatus />
          <span className="transport">{backend().transport === 'ipc' ? 'desktop' : 'browser'}</span>
          {/* Every time in the console is in this zone, written once here rather than on each time. */}
          <span className="transport" data-testid="time-zone">
            times in {zone}
          </span>
        </div>
      </nav>
      <main
        className="content"
        aria-label={route.label}
        data-view-ready={readyView === route.id || undefined}
      >
        <LinkBanner transport={backend().transport} />
        {/* The sidebar's tag marks every view; the sentence stays on the overview, so the dense views keep their room. */}
        {health?.demo && route.id === 'overview' && (
          <div className="banner banner-info demo-banner" role="note">
            <strong>Demo</strong>: a local sandbox stand-in of the payments API, twelve local nodes and sample
            events. Nothing here touches a real account; secrets live in memory only.
          </div>
        )}
        <LiveKeyBanner />
        <RestartBanner />
        <ViewBoundary key={route.id} view={route.label}>
          <View />
        </ViewBoundary>
      </main>
    </div>
  )
}
