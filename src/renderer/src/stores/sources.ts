import { create } from 'zustand'
import type { SourceStatus } from '../../../shared/contract/sources'
import { backend } from '../api'

interface SourcesState {
  sources: SourceStatus[] | null
  /** Loads once and follows the `sources.status` push from then on. */
  load(): Promise<void>
}

let subscribed = false

/** Relays this console follows (Settings → Sources, the Events view's strip). */
export const useSourcesStore = create<SourcesState>((set) => ({
  sources: null,
  async load() {
    if (!subscribed) {
      subscribed = true
      backend().onPush('sources.status', (payload) => set({ sources: payload.sources }))
    }
    const listed = await backend().call('sources.list', {})
    if (listed.ok) set({ sources: listed.value.sources })
  },
}))
