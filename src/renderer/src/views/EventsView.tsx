import { useCallback, useEffect, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { eventGroups, eventTypes } from '../../../shared/events'
import type { EventGroup } from '../../../shared/events'
import { EventDetailPane } from '../components/events/EventDetailPane'
import { EventTable } from '../components/events/EventTable'
import { ListenerPanel } from '../components/events/ListenerPanel'
import { formatCount } from '../components/events/format'
import { EmptyState } from '../components/EmptyState'
import { focusLater } from '../components/grid'
import { effects } from '../effects'
import { countLine, isFiltered, useEventsStore } from '../stores/events'
import { useStaleSince } from '../stores/link'
import { SourcesStrip } from '../components/sources/SourceProgress'
import { ForwardStrip } from '../components/forward/ForwardStrip'
import { ReplayFilteredButton } from '../components/forward/ReplayFilteredButton'
import { useForwardStore } from '../components/forward/store'
import { useSourcesStore } from '../stores/sources'
import { useViewReady } from '../hooks/useViewReady'
import { useDriftStore } from '../components/drift/store'

const ranges = [
  { id: 'any', label: 'Any time', ms: null },
  { id: '15m', label: 'Last 15 min', ms: 15 * 60_000 },
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 h', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
] as const

export function EventsView() {
  // The frame subscribes only to what it draws; the count, the listener strip and the table are
  // components with their own selectors, so a push re-renders the table, not the filters.
  const s = useEventsStore(
    useShallow((st) => ({
      filter: st.filter,
      count: st.count,
      loading: st.loading,
      heldCount: st.held.length,
      heldOverflow: st.heldOverflow,
      listening: st.listener?.listening,
      error: st.error,
      notice: st.notice,
    })),
  )
  const { attach, reload, refreshListener, setFilter, sendTest, showHeld } = useEventsStore.getState()
  const exportAs = async (format: 'jsonl' | 'csv') => {
    const file = await useEventsStore.getState().exportFiltered(format)
    if (file) effects().saveFile(file)
  }
  const [search, setSearch] = useState('')
  const [range, setRange] = useState<(typeof ranges)[number]['id']>('any')
  const [testType, setTestType] = useState('funding.completed')

  const [loaded, setLoaded] = useState(false)
  useEffect(() => {
    const attached = attach()
    const drift = useDriftStore.getState().attach()
    void Promise.all([reload(), refreshListener()]).finally(() => setLoaded(true))
    return () => {
      attached.dispose()
      drift.dispose()
    }
  }, [attach, reload, refreshListener])
  useViewReady('events', loaded)

  useEffect(() => {
    const timer = setTimeout(() => {
      if ((useEventsStore.getState().filter.search ?? '') !== search.trim())
        setFilter({ search: search.trim() })
    }, 250)
    return () => clearTimeout(timer)
  }, [search, setFilter])

  const group = s.filter.groups?.[0] ?? ''
  const type = s.filter.types?.[0] ?? ''

  return (
    <div className="view events-view">
      <header className="view-head">
        <h1>Events</h1>
        <span className="dim num" aria-label="Event count">
          <EventCount />
        </span>
        <span className="spacer" />
        {/* One framed control, labelled, so the type picker reads as part of "send a test event"
            and never as a filter of the table below. */}
        <div className="send-test" role="group" aria-label="Send a test event">
          <label htmlFor="test-event-type" className="send-test-label">
            Test event
          </label>
          <select
            id="test-event-type"
            aria-label="Test event type"
            value={testType}
            onChange={(e) => setTestType(e.target.value)}
          >
            {eventTypes.map((t) => (
              <option key={t.type}>{t.type}</option>
            ))}
          </select>
          <button
            aria-label="Send test event"
            onClick={() => void sendTest(testType)}
            disabled={s.listening === false}
            title={
              s.listening === false
                ? 'The webhook listener is not running'
                : 'Sign a sample envelope with a configured secret and post it to the listener'
            }
          >
            Send
          </button>
        </div>
        <button onClick={() => void exportAs('jsonl')}>Export JSON lines</button>
        <button onClick={() => void exportAs('csv')}>Export CSV</button>
      </header>

      <LiveListenerPanel />
      <SourcesStrip />
      <ForwardStrip />

      <div className="events-filters" role="search">
        <select
          aria-label="Group"
          value={group}
          onChange={(e) =>
            setFilter({
              groups: e.target.value ? [e.target.value as EventGroup] : undefined,
              types: undefined,
            })
          }
        >
          <option value="">All groups</option>
          {eventGroups.map((g) => (
            <option key={g.id} value={g.id}>
              {g.label}
            </option>
          ))}
          <option value="unknown">Unknown types</option>
        </select>
        <select
          aria-label="Type"
          value={type}
          onChange={(e) => setFilter({ types: e.target.value ? [e.target.value] : undefined })}
        >
          <option value="">All types</option>
          {eventTypes
            .filter((t) => !group || t.group === group)
            .map((t) => (
              <option key={t.type}>{t.type}</option>
            ))}
        </select>
        <select
          aria-label="Time range"
          value={range}
          onChange={(e) => {
            const chosen = ranges.find((r) => r.id === e.target.value)!
            setRange(chosen.id)
            setFilter({ from: chosen.ms === null ? undefined : Date.now() - chosen.ms, to: undefined })
          }}
        >
          {ranges.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
        <input
          aria-label="Search by event id or data id"
          placeholder="evt_… or fund_… (prefix)"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          spellCheck={false}
        />
        {s.heldCount > 0 && (
          <button className="primary" onClick={() => showHeld()}>
            {s.heldOverflow ? `more than ${formatCount(s.heldCount)}` : formatCount(s.heldCount)} new
          </button>
        )}
        {s.loading && <span className="dim">loading…</span>}
        <ReplayFilteredButton filter={s.filter} count={s.count?.count ?? null} />
      </div>

      {s.error && <p className="banner banner-bad">{s.error.message}</p>}
      {s.notice && <p className="banner banner-info">{s.notice}</p>}

      <EventsBody filtered={isFiltered(s.filter)} loading={s.loading} listening={s.listening} />
    </div>
  )
}

function EventCount() {
  const line = useEventsStore((st) => countLine(st.count, isFiltered(st.filter)))
  const stale = useStaleSince() !== null
  return <span className={stale ? 'stale-figure' : undefined}>{line}</span>
}

function LiveListenerPanel() {
  const status = useEventsStore((st) => st.listener)
  return <ListenerPanel status={status} />
}

/** The table and the detail: re-rendered by pushes that change rows, nothing else of the view. */
function EventsBody({
  filtered,
  loading,
  listening,
}: {
  filtered: boolean
  loading: boolean
  listening: boolean | undefined
}) {
  const { rows, next, selectedId, detail, listenerUrl } = useEventsStore(
    useShallow((st) => ({
      rows: st.rows,
      next: st.next,
      selectedId: st.selectedId,
      detail: st.detail,
      listenerUrl: st.listener?.url,
    })),
  )
  const { loadMore, select, setFollowing } = useEventsStore.getState()
  const onNearEnd = useCallback(() => void loadMore(), [loadMore])
  const onSelect = useCallback((id: string) => void select(id), [select])
  const closeDetail = useCallback(() => {
    void select(null)
    if (selectedId) focusLater(`[data-event-id="${CSS.escape(selectedId)}"]`)
  }, [select, selectedId])
  useEffect(() => {
    if (!selectedId) return
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && closeDetail()
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [selectedId, closeDetail])
  const selected = rows.find((r) => r.id === selectedId) ?? detail
  // Columns that would say the same word on every row give their room to type and id.
  const hasTargets = useForwardStore((s) => (s.status?.targets.length ?? 0) > 0)
  const hasSources = useSourcesStore((s) => (s.sources?.length ?? 0) > 0)
  const showSource = hasSources || rows.some((r) => r.source)
  return (
    <div className={selected ? 'events-body with-detail' : 'events-body'}>
      {rows.length === 0 && !loading ? (
        filtered ? (
          <EmptyState title="No event matches these filters">
            <p>Clear the group, type, time range or search to see every stored event.</p>
          </EmptyState>
        ) : (
          <EmptyState title="No webhook events yet">
            {listening === false ? (
              <p>The webhook listener is not running (see above), so no event can arrive yet.</p>
            ) : (
              <p>
                Signed webhooks arrive at <code>{listenerUrl ?? 'http://127.0.0.1:7421'}/webhooks</code>.
                Register that URL (through a tunnel or reverse proxy) as a webhook endpoint, or press “Send”
                beside Test event to post a signed sample here.
              </p>
            )}
          </EmptyState>
        )
      ) : (
        <EventTable
          rows={rows}
          hasMore={next !== null}
          selectedId={selectedId}
          onSelect={onSelect}
          onNearEnd={onNearEnd}
          onScrolledTop={setFollowing}
          showForward={hasTargets}
          showSource={showSource}
        />
      )}
      {selected && <EventDetailPane summary={selected} detail={detail} onClose={closeDetail} />}
    </div>
  )
}
