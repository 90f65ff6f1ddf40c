import { DisposableStore } from '../../shared/disposable'
import type { Disposable } from '../../shared/disposable'
import type { Client } from './api/client'
import { useAppStore } from './stores/app'
import { useChainsStore } from './stores/chains'
import { useEventsStore } from './stores/events'
import { mirrorLink } from './stores/link'
import { usePaymentsStore } from './stores/payments'
import { useClockStore } from './stores/clock'

/** Everything the page keeps running for its whole life, owned in one place: the link state, the
 * chain statuses, the push stream with its watchdog, and the resync after the back end comes back
 * (each store reloads what it shows; a store nobody looks at reloads when a view opens it). */
export function startPage(client: Client): Disposable {
  const owned = new DisposableStore()
  owned.add(mirrorLink(client))
  owned.add(useChainsStore.getState().attach())
  owned.add(useClockStore.getState().attach())
  void useClockStore.getState().load()
  owned.add(
    client.onResync(() => {
      void useAppStore.getState().load()
      useChainsStore.getState().resync()
      useEventsStore.getState().resync()
      usePaymentsStore.getState().resync()
      useClockStore.getState().resync()
    }),
  )
  owned.add(client.connect())
  return owned
}
