import type { ComponentType } from 'react'
import { parseLinkHash } from '../../shared/links'
import { views } from '../../shared/views'
import type { ViewId } from '../../shared/views'
import { ChainsView } from './views/ChainsView'
import { EventsView } from './views/EventsView'
import { OverviewView } from './views/OverviewView'
import { SettingsView } from './views/SettingsView'
import { WalletsView } from './views/WalletsView'
import { AlertsView } from './views/AlertsView'

export interface Route {
  id: ViewId
  label: string
  /** Digit key that opens the view (when no input has focus and digit shortcuts are on). */
  key: string
  View: ComponentType
}

const components: Record<ViewId, ComponentType> = {
  overview: OverviewView,
  events: EventsView,
  chains: ChainsView,
  wallets: WalletsView,
  alerts: AlertsView,
  settings: SettingsView,
}

/** The views of src/shared/views.ts with their components. */
export const routes: Route[] = views.map((v) => ({ ...v, View: components[v.id] }))

export const routeFromHash = (hash: string): Route => {
  const { view } = parseLinkHash(hash)
  return routes.find((r) => r.id === view) ?? routes[0]!
}
