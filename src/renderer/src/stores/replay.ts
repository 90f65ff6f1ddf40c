import { create } from 'zustand'
import type { ReplayStatus } from '../../../shared/contract/replay'
import type { Disposable } from '../../../shared/disposable'
import { backend } from '../api'

interface ReplayState {
  status: ReplayStatus | null
  /** Loads now (the Overview calls it on open); the page follows `replay.status` through `attach`. */
  load(): Promise<void>
  /** Follows the `replay.status` push for the page's life (lifecycle.ts `pageStores`). */
  attach(): Disposable
  /** After the back end came back: reload what was shown, if anything was. */
  resync(): void
}

/** The replay sentinel's suspects of the last 24 h (the Overview's listener tile and glance line). */
export const useReplayStore = create<ReplayState>((set, get) => ({
  status: null,
  async load() {
    const status = await backend().call('replay.status', {})
    if (status.ok) set({ status: status.value })
  },
  attach: () => backend().onPush('replay.status', (payload) => set({ status: payload })),
  resync() {
    if (get().status) void get().load()
  },
}))
