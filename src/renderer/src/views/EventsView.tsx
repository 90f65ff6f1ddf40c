import { useCallback, useEffect, useState } from 'react'
import { eventGroups, eventTypes } from '../../../shared/events'
import type { EventGroup } from '../../../shared/events'
import { EventDetailPane } from '../components/events/EventDetailPane'
import { EventTable } from '../components/events/EventTable'
import { ListenerPanel } from '../components/events/ListenerPanel'
import { formatCount } from '../components/events/format'
import { EmptyState } from '../components/EmptyState'
import { ForwardStrip } from '../components/forward/ForwardStrip'
import { ReplayFilteredButton } from '../components/forward/ReplayFilteredButton'
import { useEventsStore } from '../stores/events'

const ranges = [
  { id: 'any', label: 'Any time', ms: null },
  { id: '15m', label: 'Last 15 min', ms: 15 * 60_000 },
  { id: '1h', label: 'Last hour', ms: 3_600_000 },
  { id: '24h', label: 'Last 24 h', ms: 86_400_000 },
  { id: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
] as const

export function EventsView() {
  const s = useEventsStore()
  const { attach, reload, refreshListener, setFilter, loadMore, select, setFollowing } = s
  const [search, setSearch] = useState('')
  const [range, setRange] = useState<(typeof ranges)[number]['id']>('any')
  const [testType, setTestType] = useState('funding.completed')

  useEffect(() => {
    const detach = attach()
    void reload()
    void refreshListener()
    return detach
  }, [attach, reload, refreshListener])

  useEffect(() => {
    const timer = setTimeout(() => {
      if ((useEventsStore.getState().filter.search ?? '') !== search.trim())
        setFilter({ search: search.trim() })
    }, 250)
    return () => clearTimeout(timer)
  }, [search, setFilter])

  const onNearEnd = useCallback(() => void loadMore(), [loadMore])
  const onSelect = useCallback((id: string) => void select(id), [select])
  const selected = s.rows.find((r) => r.id === s.selectedId) ?? s.detail
  const group = s.filter.groups?.[0] ?? ''
  const type = s.filter.types?.[0] ?? ''

  return (
    <div className="view events-view">
      <header className="view-head">
        <h1>Events</h1>
        <span className="dim num" aria-label="Event count">
          {s.count
            ? `${formatCount(s.count.count)}${s.count.capped ? '+' : ''} ${Object.keys(s.filter).length ? `of ${formatCount(s.count.total)} ` : ''}stored`
            : ''}
        </span>
        <span className="spacer" />
        <select aria-label="Test event type" value={testType} onChange={(e) => setTestType(e.target.value)}>
          {eventTypes.map((t) => (
            <option key={t.type}>{t.type}</option>
          ))}
        </select>
        <button
          onClick={() => void s.sendTest(testType)}
          disabled={s.listener?.listening === false}
          title={
            s.listener?.listening === false
              ? 'The webhook listener is not running'
              : 'Sign a sample envelope with a configured secret and post it to the listener'
          }
        >
          Send test event
        </button>
        <button onClick={() => void s.exportFiltered('jsonl')}>Export JSON lines</button>
        <button onClick={() => void s.exportFiltered('csv')}>Export CSV</button>
      </header>

      <ListenerPanel status={s.listener} />
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
        {s.held.length > 0 && (
          <button className="primary" onClick={() => s.showHeld()}>
            {formatCount(s.held.length)} new
          </button>
        )}
        {s.loading && <span className="dim">loading…</span>}
        <ReplayFilteredButton filter={s.filter} count={s.count?.count ?? null} />
      </div>

      {s.error && <p className="banner banner-bad">{s.error.message}</p>}
      {s.notice && <p className="banner banner-info">{s.notice}</p>}

      <div className={selected ? 'events-body with-detail' : 'events-body'}>
        {s.rows.length === 0 && !s.loading ? (
          Object.keys(s.filter).length ? (
            <EmptyState title="No event matches these filters">
              <p>Clear the group, type, time range or search to see every stored event.</p>
            </EmptyState>
          ) : (
            <EmptyState title="No webhook events yet">
              {s.listener?.listening === false ? (
                <p>The webhook listener is not running (see above), so no event can arrive yet.</p>
              ) : (
                <p>
                  Signed webhooks arrive at <code>{s.listener?.url ?? 'http://127.0.0.1:7421'}/webhooks</code>
                  . Register that URL (through a tunnel or reverse proxy) as a webhook endpoint, or press
                  “Send test event” to post a signed sample here.
                </p>
              )}
            </EmptyState>
          )
        ) : (
          <EventTable
            rows={s.rows}
            hasMore={s.next !== null}
            selectedId={s.selectedId}
            onSelect={onSelect}
            onNearEnd={onNearEnd}
            onScrolledTop={setFollowing}
          />
        )}
        {selected && (
          <EventDetailPane summary={selected} detail={s.detail} onClose={() => void select(null)} />
        )}
      </div>
    </div>
  )
}
