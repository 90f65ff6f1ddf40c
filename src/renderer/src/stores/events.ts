import { create } from 'zustand'
import type {
  EventCursor,
  EventDetail,
  EventFilter,
  EventSummary,
  ListenerStatus,
} from '../../../shared/contract/events'
import type { ApiError } from '../../../shared/result'
import { backend } from '../api'

const pageSize = 200
/** Rows kept in memory while following the live tail; older ones are paged in again on scroll. */
const maxLiveRows = 5_000

interface EventsState {
  filter: EventFilter
  rows: EventSummary[]
  next: EventCursor | null
  loading: boolean
  count: { count: number; capped: boolean; total: number } | null
  /** New events that match the filter but are held back while the operator is scrolled down. */
  held: EventSummary[]
  following: boolean
  selectedId: string | null
  detail: EventDetail | null
  listener: ListenerStatus | null
  error: ApiError | null
  notice: string | null
  setFilter(patch: Partial<EventFilter>): void
  reload(): Promise<void>
  loadMore(): Promise<void>
  select(id: string | null): Promise<void>
  setFollowing(following: boolean): void
  showHeld(): void
  refreshListener(): Promise<void>
  sendTest(type: string, endpoint?: string): Promise<void>
  exportFiltered(format: 'jsonl' | 'csv'): Promise<void>
  attach(): () => void
}

/** Client-side twin of the back end's filter, for live events arriving by push. */
export function matchesFilter(event: EventSummary, filter: EventFilter): boolean {
  if (filter.groups?.length && !filter.groups.includes(event.group)) return false
  if (filter.types?.length && !filter.types.includes(event.type)) return false
  if (filter.from !== undefined && event.receivedAt < filter.from) return false
  if (filter.to !== undefined && event.receivedAt > filter.to) return false
  const search = filter.search?.trim()
  if (search && !event.id.startsWith(search) && !(event.dataId ?? '').startsWith(search)) return false
  return true
}

let loadToken = 0

export const useEventsStore = create<EventsState>((set, get) => ({
  filter: {},
  rows: [],
  next: null,
  loading: false,
  count: null,
  held: [],
  following: true,
  selectedId: null,
  detail: null,
  listener: null,
  error: null,
  notice: null,

  setFilter(patch) {
    const filter = { ...get().filter, ...patch }
    for (const key of Object.keys(filter) as (keyof EventFilter)[]) {
      const value = filter[key]
      if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0))
        delete filter[key]
    }
    set({ filter })
    void get().reload()
  },

  async reload() {
    const token = ++loadToken
    const { filter } = get()
    set({ loading: true, held: [] })
    const [page, count] = await Promise.all([
      backend().call('events.list', { filter, limit: pageSize }),
      backend().call('events.count', { filter }),
    ])
    if (token !== loadToken) return
    if (!page.ok) return set({ loading: false, error: page.error })
    set({
      rows: page.value.rows,
      next: page.value.next,
      loading: false,
      error: null,
      count: count.ok ? count.value : null,
    })
  },

  async loadMore() {
    const { next, loading, filter } = get()
    if (!next || loading) return
    const token = loadToken
    set({ loading: true })
    const page = await backend().call('events.list', { filter, after: next, limit: pageSize })
    if (token !== loadToken) return
    if (!page.ok) return set({ loading: false, error: page.error })
    set((s) => ({ rows: [...s.rows, ...page.value.rows], next: page.value.next, loading: false }))
  },

  async select(id) {
    set({ selectedId: id, detail: id && get().detail?.id === id ? get().detail : null })
    if (!id) return
    const detail = await backend().call('events.get', { id })
    if (get().selectedId !== id) return
    set(detail.ok ? { detail: detail.value } : { error: detail.error })
  },

  setFollowing(following) {
    if (following === get().following) return
    set({ following })
    if (following) get().showHeld()
  },

  showHeld() {
    set((s) => ({ rows: mergeNewest(s.held, s.rows), held: [] }))
  },

  async refreshListener() {
    const status = await backend().call('events.listener', {})
    if (status.ok) set({ listener: status.value })
  },

  async sendTest(type, endpoint) {
    set({ notice: `Sending a signed ${type} test event…` })
    const sent = await backend().call('events.sendTest', endpoint ? { type, endpoint } : { type })
    if (!sent.ok) return set({ notice: null, error: sent.error })
    set({
      notice:
        sent.value.status === 200
          ? `Test event ${sent.value.id} (${type}) signed with ${sent.value.endpoint}'s secret: the listener answered 200.`
          : `Test event ${sent.value.id}: the listener answered ${sent.value.status}, so it was not stored.`,
      error: null,
    })
  },

  async exportFiltered(format) {
    const exported = await backend().call('events.export', { filter: get().filter, format })
    if (!exported.ok) return set({ error: exported.error })
    const blob = new Blob([exported.value.text], {
      type: format === 'csv' ? 'text/csv' : 'application/x-ndjson',
    })
    const link = document.createElement('a')
    link.href = URL.createObjectURL(blob)
    link.download = exported.value.fileName
    link.click()
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000)
    set({
      notice: `Exported ${exported.value.rows.toLocaleString('en-US')} events as ${exported.value.fileName}${
        exported.value.truncated ? ' (the first 50,000 of the filter: narrow it to export the rest)' : ''
      }.`,
    })
  },

  attach() {
    const offAppended = backend().onPush('events.appended', ({ events, omitted }) => {
      const s = get()
      if (omitted > 0 && s.following) return void s.reload()
      const matching = events.filter((e) => matchesFilter(e, s.filter))
      const updatedDetail = s.detail && events.find((e) => e.id === s.detail!.id)
      if (updatedDetail) set({ detail: { ...s.detail!, ...updatedDetail } })
      if (matching.length === 0) return
      const known = new Set(s.rows.map((r) => r.id))
      const updates = matching.filter((e) => known.has(e.id))
      const fresh = matching.filter((e) => !known.has(e.id))
      let rows = updates.length ? s.rows.map((r) => updates.find((u) => u.id === r.id) ?? r) : s.rows
      const count = s.count && {
        ...s.count,
        count: s.count.count + fresh.length,
        total: s.count.total + events.filter((e) => e.deliveries === 1).length,
      }
      if (s.following) {
        rows = mergeNewest(fresh, rows)
        if (rows.length <= Math.max(maxLiveRows, s.rows.length)) return set({ rows, count })
        rows = rows.slice(0, maxLiveRows)
        const last = rows.at(-1)!
        set({ rows, count, next: { receivedAt: last.receivedAt, seq: last.seq } })
      } else {
        set({ rows, count, held: mergeNewest(fresh, s.held) })
      }
    })
    const offListener = backend().onPush('events.listener', (listener) => set({ listener }))
    return () => {
      offAppended()
      offListener()
    }
  },
}))

function mergeNewest(fresh: EventSummary[], rows: EventSummary[]): EventSummary[] {
  if (fresh.length === 0) return rows
  const newestFirst = [...fresh].sort((a, b) => b.receivedAt - a.receivedAt || b.seq - a.seq)
  const ids = new Set(newestFirst.map((e) => e.id))
  return [...newestFirst, ...rows.filter((r) => !ids.has(r.id))]
}
