import { create } from 'zustand'
import type { ClockStatus } from '../../../shared/contract/clock'
import type { Disposable } from '../../../shared/disposable'
import { backend } from '../api'

/** The clock guard's status (issue 32.3), kept live by the `clock.status` push. */
interface ClockState {
  status: ClockStatus | null
  load(): Promise<void>
  /** Follows the push; the page owns the subscription for its lifetime. */
  attach(): Disposable
  /** After the back end came back. */
  resync(): void
}

export const useClockStore = create<ClockState>((set, get) => ({
  status: null,
  async load() {
    const result = await backend().call('clock.status', {})
    if (result.ok) set({ status: result.value })
  },
  attach: () => backend().onPush('clock.status', (status) => set({ status })),
  resync() {
    if (get().status) void get().load()
  },
}))
