import { create } from 'zustand'
import { matchesFilter } from '../../../shared/events/filter'
import type {
  EventCursor,
  EventDetail,
  EventFilter,
  EventSummary,
  ListenerStatus,
} from '../../../shared/contract/events'
import { DisposableStore, toDisposable } from '../../../shared/disposable'
import type { Disposable } from '../../../shared/disposable'
import type { ApiError } from '../../../shared/result'
import { backend } from '../api'

const pageSize = 200
/** Rows kept in memory while following the live tail; older ones are paged in again on scroll. */
export const maxLiveRows = 5_000

export interface EventCount {
  count: number
  capped: boolean
  total: number
  /** The newest event's seq the count includes: pushed events above it are added once each. */
  throughSeq: number
}

/** A file for the view to save (effects.ts); the store never touches the DOM. */
export interface ExportedFile {
  name: string
  text: string
  type: string
}

interface EventsState {
  filter: EventFilter
  rows: EventSummary[]
  next: EventCursor | null
  loading: boolean
  count: EventCount | null
  /** New events that match the filter but are held back while the operator is scrolled down:
   * the newest `maxLiveRows` of them. */
  held: EventSummary[]
  /** More arrived than `held` keeps: showing them reads the page from the top again. */
  heldOverflow: boolean
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
  /** Follows the `events.listener` push (the Overview, without the table's subscriptions). */
  followListener(): Disposable
  sendTest(type: string, endpoint?: string): Promise<void>
  exportFiltered(format: 'jsonl' | 'csv'): Promise<ExportedFile | null>
  /** Applies one `events.appended` push (exported for tests; attach wires it). */
  applyAppended(batch: { events: EventSummary[]; omitted: number }): void
  /** After the back end came back: events stored meanwhile, the count and the listener strip. */
  resync(): void
  /** Follows the pushes while a view shows events; the view owns the result. */
  attach(): Disposable
}

/** Live events arriving by push are filtered with the same definition as the stores' SQL
 * (src/shared/events/filter.ts); each rule is pinned by test/renderer/events-store.test.ts. */
export { matchesFilter }

/** The count line above the table, derived in one place: "1,234+ of 5,000 stored". */
export function countLine(count: EventCount | null, filtered: boolean): string {
  if (!count) return ''
  const n = (v: number) => v.toLocaleString('en-US')
  return `${n(count.count)}${count.capped ? '+' : ''} ${filtered ? `of ${n(count.total)} ` : ''}stored`
}

export const isFiltered = (filter: EventFilter): boolean => Object.keys(filter).length > 0

let loadToken = 0
/** Events pushed while a read of the page and count is in flight, one list per read: the page or
 * the count may have been read before they were committed, so they are merged into what the read
 * answers rather than lost (or, for the count, added twice). */
const readsInFlight = new Set<EventSummary[]>()

/** The count after pushed `events`: each event above the count's `throughSeq` once (a redelivery
 * keeps its seq, an event the count's snapshot already held is at or below it), then the newest. */
export function countWith(count: EventCount, events: EventSummary[], filter: EventFilter): EventCount {
  const counted = new Set<number>()
  let matched = 0
  let throughSeq = count.throughSeq
  for (const e of events) {
    if (e.seq <= count.throughSeq || counted.has(e.seq)) continue
    counted.add(e.seq)
    if (matchesFilter(e, filter)) matched++
    throughSeq = Math.max(throughSeq, e.seq)
  }
  if (counted.size === 0) return count
  return { ...count, count: count.count + matched, total: count.total + counted.size, throughSeq }
}

/** Reads the first page and the count, with the events pushed while they were read. */
async function readTop(filter: EventFilter) {
  const arrived: EventSummary[] = []
  readsInFlight.add(arrived)
  try {
    const [page, count] = await Promise.all([
      backend().call('events.list', { filter, limit: pageSize }),
      backend().call('events.count', { filter }),
    ])
    return { page, count: count.ok ? countWith(count.value, arrived, filter) : null, arrived }
  } finally {
    readsInFlight.delete(arrived)
  }
}
let attachedViews = 0
/** While the pushes overflow (more than 500 events per 150 ms push, above ~3,300/s), the page and
 * the count are read again at most once per this many ms: the pushes in between still put their
 * events, the newest, on top, and the count catches up at the next read. Reading both on every
 * push cost the listener's thread a query pair every 150 ms through a whole burst. */
export const overflowReloadMs = 1_000
let lastOverflowReload = -Infinity
let overflowReload: ReturnType<typeof setTimeout> | null = null

export const useEventsStore = create<EventsState>((set, get) => ({
  filter: {},
  rows: [],
  next: null,
  loading: false,
  count: null,
  held: [],
  heldOverflow: false,
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
    set({ loading: true, held: [], heldOverflow: false })
    const { page, count, arrived } = await readTop(filter)
    if (token !== loadToken) return
    if (!page.ok) return set({ loading: false, error: page.error })
    const listed = new Set(page.value.rows.map((r) => r.id))
    const missed = arrived.filter((e) => !listed.has(e.id) && matchesFilter(e, filter))
    set({
      rows: mergeNewest(missed, page.value.rows),
      next: page.value.next,
      loading: false,
      error: null,
      count,
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
    set((s) => {
      const known = new Set(s.rows.map((r) => r.id))
      return {
        rows: [...s.rows, ...page.value.rows.filter((r) => !known.has(r.id))],
        next: page.value.next,
        loading: false,
      }
    })
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
    // Events were left out of `held`: the rows below it would have a gap, so read from the top.
    if (get().heldOverflow) return void get().reload()
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
    if (!exported.ok) {
      set({ error: exported.error })
      return null
    }
    set({
      notice: `Exported ${exported.value.rows.toLocaleString('en-US')} events as ${exported.value.fileName}${
        exported.value.truncated ? ' (the first 50,000 of the filter: narrow it to export the rest)' : ''
      }.`,
    })
    return {
      name: exported.value.fileName,
      text: exported.value.text,
      type: format === 'csv' ? 'text/csv' : 'application/x-ndjson',
    }
  },

  applyAppended({ events, omitted }) {
    const s = get()
    for (const arrived of readsInFlight) arrived.push(...events)
    if (omitted > 0 && s.following) {
      const wait = lastOverflowReload + overflowReloadMs - Date.now()
      if (wait <= 0) {
        lastOverflowReload = Date.now()
        return void s.reload()
      }
      overflowReload ??= setTimeout(() => {
        overflowReload = null
        lastOverflowReload = Date.now()
        if (get().following) void get().reload()
      }, wait)
    }
    const matching = events.filter((e) => matchesFilter(e, s.filter))
    const updatedDetail = s.detail && events.find((e) => e.id === s.detail!.id)
    if (updatedDetail) set({ detail: { ...s.detail!, ...updatedDetail } })
    // Every new event moves the total ("of N stored"), those the filter leaves out too.
    const count = s.count && countWith(s.count, events, s.filter)
    if (matching.length === 0) {
      if (count !== s.count) set({ count })
      return
    }
    const known = new Set(s.rows.map((r) => r.id))
    const updates = new Map(matching.filter((e) => known.has(e.id)).map((e) => [e.id, e]))
    const fresh = matching.filter((e) => !known.has(e.id))
    let rows = updates.size ? s.rows.map((r) => updates.get(r.id) ?? r) : s.rows
    if (s.following) {
      rows = mergeNewest(fresh, rows)
      if (rows.length <= Math.max(maxLiveRows, s.rows.length)) return set({ rows, count })
      rows = rows.slice(0, maxLiveRows)
      const last = rows.at(-1)!
      set({ rows, count, next: { receivedAt: last.receivedAt, seq: last.seq } })
    } else {
      set({ rows, count, ...holdNewest(fresh, s) })
    }
  },

  resync() {
    if (attachedViews === 0) return
    void get().refreshListener()
    if (get().following) return void get().reload()
    // Scrolled down: keep the operator's place; what arrived meanwhile waits behind "N new".
    const { filter } = get()
    void readTop(filter).then(({ page, count }) => {
      if (!page.ok || get().filter !== filter) return
      const s = get()
      const known = new Set([...s.rows, ...s.held].map((r) => r.id))
      const missed = page.value.rows.filter((r) => !known.has(r.id))
      set({ ...holdNewest(missed, s), count: count ?? s.count })
    })
  },

  followListener() {
    return backend().onPush('events.listener', (listener) => set({ listener }))
  },

  attach() {
    const owned = new DisposableStore()
    attachedViews++
    owned.add(toDisposable(() => attachedViews--))
    owned.add(backend().onPush('events.appended', (batch) => get().applyAppended(batch)))
    owned.add(backend().onPush('events.listener', (listener) => set({ listener })))
    return owned
  },
}))

/** `fresh` before `rows`, newest first, each id once. */
/** `fresh` added to what is held, keeping the newest `maxLiveRows`: an operator scrolled down
 * through a long burst holds a bounded list (and each push looks through it), not every event. */
function holdNewest(
  fresh: EventSummary[],
  s: Pick<EventsState, 'held' | 'heldOverflow'>,
): Pick<EventsState, 'held' | 'heldOverflow'> {
  const held = mergeNewest(fresh, s.held)
  if (held.length <= maxLiveRows) return { held, heldOverflow: s.heldOverflow }
  return { held: held.slice(0, maxLiveRows), heldOverflow: true }
}

export function mergeNewest(fresh: EventSummary[], rows: EventSummary[]): EventSummary[] {
  if (fresh.length === 0) return rows
  const newestFirst = [...fresh].sort((a, b) => b.receivedAt - a.receivedAt || b.seq - a.seq)
  const ids = new Set(newestFirst.map((e) => e.id))
  return [...newestFirst, ...rows.filter((r) => !ids.has(r.id))]
}
