import { create } from 'zustand'
import type { SourceStatus } from '../../../shared/contract/sources'
import type { Disposable } from '../../../shared/disposable'
import { backend } from '../api'

interface SourcesState {
  sources: SourceStatus[] | null
  load(): Promise<void>
  /** Follows the `sources.status` push for the page's life (lifecycle.ts). */
  attach(): Disposable
  /** Reloads the list once something loaded it. */
  resync(): void
}

/** Relays this console follows (Settings → Sources, the Events view's strip). */
export const useSourcesStore = create<SourcesState>((set, get) => ({
  sources: null,
  async load() {
    const listed = await backend().call('sources.list', {})
    if (listed.ok) set({ sources: listed.value.sources })
  },
  attach: () => backend().onPush('sources.status', (payload) => set({ sources: payload.sources })),
  resync() {
    if (get().sources !== null) void get().load()
  },
}))
