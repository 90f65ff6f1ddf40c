import type { ComponentType } from 'react'
import { ChainsView } from './views/ChainsView'
import { EventsView } from './views/EventsView'
import { OverviewView } from './views/OverviewView'
import { SettingsView } from './views/SettingsView'
import { WalletsView } from './views/WalletsView'
import { AlertsView } from './views/AlertsView'

export interface Route {
  id: string
  label: string
  /** Digit key that opens the view (when no input has focus). */
  key: string
  View: ComponentType
}

export const routes: Route[] = [
  { id: 'overview', label: 'Overview', key: '1', View: OverviewView },
  { id: 'events', label: 'Events', key: '2', View: EventsView },
  { id: 'chains', label: 'Chains', key: '3', View: ChainsView },
  { id: 'wallets', label: 'Wallets', key: '4', View: WalletsView },
  { id: 'alerts', label: 'Alerts', key: '5', View: AlertsView },
  { id: 'settings', label: 'Settings', key: '6', View: SettingsView },
]

export const routeFromHash = (hash: string): Route =>
  routes.find((r) => `#/${r.id}` === hash.split('?')[0]) ?? routes[0]!
