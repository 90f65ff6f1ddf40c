import { useEffect, useState } from 'react'
import { backend } from './api'
import { routeFromHash, routes } from './routes'
import { useAppStore } from './stores/app'
import { StatusBadge } from './components/Status'
import { LiveKeyBanner } from './components/payments/LiveKeyBanner'
import { useBrowserNotifications } from './components/alerts/useBrowserNotifications'

function useHashRoute() {
  const [route, setRoute] = useState(() => routeFromHash(window.location.hash))
  useEffect(() => {
    const onHash = () => setRoute(routeFromHash(window.location.hash))
    window.addEventListener('hashchange', onHash)
    return () => window.removeEventListener('hashchange', onHash)
  }, [])
  return route
}

function useDigitShortcuts() {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null
      if (event.altKey || event.ctrlKey || event.metaKey) return
      if (target && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return
      const route = routes.find((r) => r.key === event.key)
      if (route) window.location.hash = `#/${route.id}`
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
}

export function App() {
  const route = useHashRoute()
  const { health, error, load } = useAppStore()
  useDigitShortcuts()
  useBrowserNotifications()
  useEffect(() => {
    void load()
  }, [load])
  const { View } = route
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Views">
        <div className="brand">watchdesk</div>
        <ul>
          {routes.map((r) => (
            <li key={r.id}>
              <a
                href={`#/${r.id}`}
                aria-current={r.id === route.id ? 'page' : undefined}
                aria-keyshortcuts={r.key}
              >
                <span>{r.label}</span>
                <kbd>{r.key}</kbd>
              </a>
            </li>
          ))}
        </ul>
        <div className="sidebar-foot">
          {health ? (
            <StatusBadge
              tone="good"
              label={`back end ${health.version}`}
              title={`${health.shell} since ${health.startedAt}`}
            />
          ) : (
            <StatusBadge
              tone={error ? 'bad' : 'muted'}
              label={error ? 'back end unreachable' : 'connecting'}
              title={error?.message}
            />
          )}
          <span className="transport">{backend().transport === 'ipc' ? 'desktop' : 'browser'}</span>
        </div>
      </nav>
      <main className="content" aria-label={route.label}>
        <LiveKeyBanner />
        <View />
      </main>
    </div>
  )
}
