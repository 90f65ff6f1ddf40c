import { create } from 'zustand'
import type { Disposable } from '../../../shared/disposable'
import type { Client, Link } from '../api/client'

/** The client's view of the back end (api/client.ts), mirrored for React. One writer: mirrorLink. */
export const useLinkStore = create<{ link: Link }>(() => ({
  link: { state: 'connecting', since: Date.now() },
}))

export function mirrorLink(client: Client): Disposable {
  useLinkStore.setState({ link: client.link() })
  return client.onLink((link) => useLinkStore.setState({ link }))
}

/** null while the back end answers; otherwise the time (ms) of its last sign of life, which is as
 * far as any live figure on screen is known to be true. Every view that shows live figures reads
 * this, greys them (`data-stale`) and says their age (<StaleNote />). */
export const useStaleSince = (): number | null =>
  useLinkStore((s) => (s.link.state === 'lost' ? s.link.since : null))
