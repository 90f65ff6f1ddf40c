import { DisposableStore } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import type { Client } from './api/client'
import { useForwardStore } from './components/forward/store'
import { useAlertsStore } from './stores/alerts'
import { useAppStore } from './stores/app'
import { useChainsStore } from './stores/chains'
import { useEventsStore } from './stores/events'
import { mirrorLink } from './stores/link'
import { usePaymentsStore } from './stores/payments'
import { useSettingsStore } from './stores/settings'
import { useSourcesStore } from './stores/sources'
import { useClockStore } from './stores/clock'
import { useReplayStore } from './stores/replay'
import { useDriftStore } from './components/drift/store'

/** A store that shows what the back end holds. `attach`: what it follows for the page's whole
 * life (pushes); `resync`: reload what it has shown after the back end came back (a restart, a
 * lost stream), so nothing from before is shown as live. A store nobody looked at loads when a view
 * opens it. A view may attach more while it is open (events, payments, settings, forward). */
export interface PageStore {
  name: string
  attach?(): Disposable
  resync(): void
}

/** Every store that talks to the back end, in one list (test/renderer/page-stores.test.ts checks
 * that none is missing): a new store is one line here. */
export const pageStores: readonly PageStore[] = [
  { name: 'app', resync: () => void useAppStore.getState().load() },
  {
    name: 'chains',
    attach: () => useChainsStore.getState().attach(),
    resync: () => useChainsStore.getState().resync(),
  },
  { name: 'events', resync: () => useEventsStore.getState().resync() },
  { name: 'payments', resync: () => usePaymentsStore.getState().resync() },
  {
    name: 'alerts',
    attach: () => useAlertsStore.getState().attach(),
    resync: () => useAlertsStore.getState().resync(),
  },
  {
    name: 'sources',
    attach: () => useSourcesStore.getState().attach(),
    resync: () => useSourcesStore.getState().resync(),
  },
  { name: 'settings', resync: () => useSettingsStore.getState().resync() },
  { name: 'forward', resync: () => useForwardStore.getState().resync() },
  {
    name: 'clock',
    attach: () => {
      const following = useClockStore.getState().attach()
      void useClockStore.getState().load()
      return following
    },
    resync: () => useClockStore.getState().resync(),
  },
  {
    name: 'replay',
    attach: () => useReplayStore.getState().attach(),
    resync: () => useReplayStore.getState().resync(),
  },
  // The Overview and the Events view attach it while open.
  { name: 'drift', resync: () => useDriftStore.getState().resync() },
]

/** Attaches every page store and resyncs them all when the back end comes back. */
export function followPageStores(client: Client, stores: readonly PageStore[] = pageStores): Disposable {
  const owned = new DisposableStore()
  for (const store of stores) {
    if (store.attach) owned.add(store.attach())
    // One listener each: the client isolates a store that throws from the others.
    owned.add(client.onResync(() => store.resync()))
  }
  return owned
}

/** Everything the page keeps running for its whole life, owned in one place: the link state, the
 * page stores (their pushes and their resync after the back end comes back), and the push stream
 * with its watchdog. */
export function startPage(client: Client): Disposable {
  const owned = new DisposableStore()
  owned.add(mirrorLink(client))
  owned.add(followPageStores(client))
  owned.add(client.connect())
  return owned
}
