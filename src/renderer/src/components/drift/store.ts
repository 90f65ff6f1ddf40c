import { create } from 'zustand'
import type { DriftStatus, ShapeDrift } from '../../../../shared/contract/drift'
import type { Disposable } from '../../../../shared/disposable'
import { toDisposable } from '../../../../shared/disposable'
import { backend } from '../../api'

/** The payload drift watch as the views see it: its status (`drift.status`, then its pushes) and
 * the changes by the event that first showed them, so the Events view marks that event. */
interface DriftStore {
  status: DriftStatus | null
  byEvent: Record<string, ShapeDrift>
  error: string | null
  load(): Promise<void>
  /** Follows the pushes while a view needs them (the Overview, the Events view). */
  attach(): Disposable
  acknowledge(id: number): Promise<void>
  /** After the back end came back: reload what was shown, if anything was. */
  resync(): void
}

const indexed = (status: DriftStatus) => Object.fromEntries(status.drifts.map((d) => [d.eventId, d]))

let attached = 0
let following: Disposable | null = null

export const useDriftStore = create<DriftStore>((set, get) => {
  const apply = (status: DriftStatus) => set({ status, byEvent: indexed(status), error: null })
  return {
    status: null,
    byEvent: {},
    error: null,
    async load() {
      const r = await backend().call('drift.status', {})
      if (r.ok) apply(r.value)
    },
    attach() {
      attached++
      following ??= backend().onPush('drift.status', apply)
      void useDriftStore.getState().load()
      return toDisposable(() => {
        if (--attached > 0) return
        following?.dispose()
        following = null
      })
    },
    resync() {
      if (get().status) void get().load()
    },
    async acknowledge(id) {
      const r = await backend().call('drift.acknowledge', { id })
      if (r.ok) apply(r.value)
      else set({ error: r.error.message })
    },
  }
})
