import { create } from 'zustand'
import type { ResponseOf } from '../../../shared/contract'
import type { AlertRecord, Incident, MuteInfo } from '../../../shared/contract/alerts'
import type { ApiError } from '../../../shared/result'
import type { Disposable } from '../../../shared/disposable'
import { backend } from '../api'

/** Incidents, the alert log and mutes; reloaded when the back end says something changed
 * (`alerts.changed`), never polled. */

export interface IncidentFilter {
  serviceId?: number
  rule?: string
  open?: boolean
}

interface AlertsState {
  filter: IncidentFilter
  incidents: Incident[]
  log: AlertRecord[]
  mutes: MuteInfo[]
  channels: ResponseOf<'alerts.channels'> | null
  /** Every open incident, whatever the view's filter (the sidebar's count, the Overview's tile);
   * null until the first answer. */
  open: Incident[] | null
  error: ApiError | null
  /** The incident a link opened (`#/alerts/incident/12`): highlighted in the table. */
  linkedIncident: number | null
  load(): Promise<void>
  /** Loads the open incidents and follows `alerts.changed` from then on. */
  loadOpen(): Promise<void>
  /** Loads the open incidents unless they are shown or on their way already: a view that opens
   * asks for them, and at the page's start the App has just asked (one request, not two). Pushes
   * and resync keep them current after that, through `loadOpen`. */
  ensureOpen(): Promise<void>
  setFilter(filter: IncidentFilter): void
  mute(minutes: number, serviceIds?: number[]): Promise<void>
  unmute(id: string): Promise<void>
  loadChannels(): Promise<void>
  /** Follows `alerts.changed` for the page's life (lifecycle.ts): reloads what was loaded. */
  attach(): Disposable
  /** Reloads what was loaded (the open incidents; the views' lists once a view loaded them). */
  resync(): void
}

/** Whether a view loaded the incidents, the log and the mutes (not only the open incidents). */
let loadedLists = false
/** The open incidents' request under way, if any (see ensureOpen). */
let openLoading: Promise<void> | null = null

export const useAlertsStore = create<AlertsState>((set, get) => ({
  filter: {},
  incidents: [],
  log: [],
  mutes: [],
  channels: null,
  open: null,
  error: null,
  linkedIncident: null,
  async load() {
    loadedLists = true
    void get().loadOpen()
    const [incidents, log, mutes] = await Promise.all([
      backend().call('alerts.incidents', { ...get().filter, limit: 200 }),
      backend().call('alerts.log', { limit: 200 }),
      backend().call('alerts.mutes', {}),
    ])
    set({
      incidents: incidents.ok ? incidents.value.incidents : get().incidents,
      log: log.ok ? log.value.records : get().log,
      mutes: mutes.ok ? mutes.value.mutes : get().mutes,
      error: !incidents.ok ? incidents.error : !log.ok ? log.error : !mutes.ok ? mutes.error : null,
    })
  },
  loadOpen() {
    const loading = (async () => {
      const r = await backend().call('alerts.incidents', { open: true, limit: 1000 })
      if (r.ok) set({ open: r.value.incidents })
    })()
    openLoading = loading
    void loading.finally(() => {
      if (openLoading === loading) openLoading = null
    })
    return loading
  },
  async ensureOpen() {
    if (get().open !== null) return
    if (openLoading) return openLoading
    return get().loadOpen()
  },
  setFilter(filter) {
    set({ filter })
    void get().load()
  },
  async mute(minutes, serviceIds) {
    const r = await backend().call('alerts.mute', { minutes, serviceIds })
    if (!r.ok) set({ error: r.error })
    await get().load()
  },
  async unmute(id) {
    const r = await backend().call('alerts.unmute', { id })
    if (!r.ok) set({ error: r.error })
    await get().load()
  },
  async loadChannels() {
    const r = await backend().call('alerts.channels', {})
    set(r.ok ? { channels: r.value } : { error: r.error })
  },
  attach: () => backend().onPush('alerts.changed', () => get().resync()),
  resync() {
    if (loadedLists) void get().load()
    else if (get().open !== null) void get().loadOpen()
  },
}))
