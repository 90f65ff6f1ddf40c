import { create } from 'zustand'
import type { ReplayStatus } from '../../../shared/contract/replay'
import { backend } from '../api'

interface ReplayState {
  status: ReplayStatus | null
  /** Loads now and follows the `replay.status` push from then on (the Overview calls it on open). */
  load(): Promise<void>
}

let subscribed = false

/** The replay sentinel's suspects of the last 24 h (the Overview's listener tile and glance line). */
export const useReplayStore = create<ReplayState>((set) => ({
  status: null,
  async load() {
    if (!subscribed) {
      subscribed = true
      backend().onPush('replay.status', (payload) => set({ status: payload }))
    }
    const status = await backend().call('replay.status', {})
    if (status.ok) set({ status: status.value })
  },
}))
