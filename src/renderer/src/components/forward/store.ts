import { create } from 'zustand'
import type { ForwardState, ForwardStatus } from '../../../../shared/contract/forward'
import { DisposableStore } from '../../../../shared/disposable'
import type { Disposable } from '../../../../shared/disposable'
import { backend } from '../../api'

/** Forward states of the events on screen and the targets' status, fed by `forward.*` pushes.
 * States of rows the table shows are fetched in batches (one call per 100 ms of new rows). */
interface ForwardStore {
  states: Record<string, ForwardState | 'none'>
  /** Bumped for an event whenever new attempts of it were recorded (the detail pane reloads). */
  versions: Record<string, number>
  status: ForwardStatus | null
  want(id: string): void
  refreshStatus(): Promise<void>
  attach(): Disposable
  /** Reloads the targets' status once shown, and asks again for the states of rows on screen. */
  resync(): void
}

let wanted = new Set<string>()
let timer: ReturnType<typeof setTimeout> | null = null

/** States and versions kept at most, the most recently learned: the table shows a few hundred
 * rows, and a console that follows 1,000 events/s for a day would otherwise keep an entry for
 * every event it ever showed (and copy them all on every push). */
export const maxKnownStates = 2_000

/** `record` with only its newest `maxKnownStates` keys (insertion order: a key set again after a
 * delete is newest). */
function newest<T>(record: Record<string, T>): Record<string, T> {
  const keys = Object.keys(record)
  if (keys.length <= maxKnownStates) return record
  return Object.fromEntries(keys.slice(-maxKnownStates).map((k) => [k, record[k]!]))
}

export const useForwardStore = create<ForwardStore>((set, get) => ({
  states: {},
  versions: {},
  status: null,
  want(id) {
    if (get().states[id] !== undefined || wanted.has(id)) return
    wanted.add(id)
    timer ??= setTimeout(() => {
      timer = null
      const ids = [...wanted].slice(0, 1000)
      wanted = new Set()
      void backend()
        .call('forward.states', { ids })
        .then((r) => {
          if (!r.ok) return
          const next = { ...get().states }
          for (const id of ids) {
            delete next[id]
            next[id] = r.value.states[id] ?? 'none'
          }
          set({ states: newest(next) })
        })
    }, 100)
  },
  async refreshStatus() {
    const r = await backend().call('forward.status', {})
    if (r.ok) set({ status: r.value })
  },
  attach() {
    const owned = new DisposableStore()
    owned.add(
      backend().onPush('forward.states', ({ states }) => {
        const versions = { ...get().versions }
        for (const id of Object.keys(states)) versions[id] = (versions[id] ?? 0) + 1
        set({ states: newest({ ...get().states, ...states }), versions: newest(versions) })
      }),
    )
    owned.add(backend().onPush('forward.status', (status) => set({ status })))
    // New events are queued at once: forget what is known about them so it is asked again.
    owned.add(
      backend().onPush('events.appended', ({ events }) => {
        const states = { ...get().states }
        for (const e of events) delete states[e.id]
        set({ states })
      }),
    )
    void get().refreshStatus()
    return owned
  },
  resync() {
    if (get().status) void get().refreshStatus()
    // States learned before the back end went away may have moved on: the marks on screen ask again.
    set({ states: {} })
  },
}))

export const stateLabel: Record<ForwardState, string> = {
  pending: 'pending',
  delivered: 'delivered',
  failing: 'failing',
  gave_up: 'gave up',
}

export const stateTone = { pending: 'info', delivered: 'good', failing: 'warn', gave_up: 'bad' } as const
