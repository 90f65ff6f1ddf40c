import type { Incident } from '../../../../shared/contract/alerts'
import type { ListenerStatus } from '../../../../shared/contract/events'
import type { ForwardStatus } from '../../../../shared/contract/forward'
import type { SourceStatus } from '../../../../shared/contract/sources'
import type { PublicUrlState } from '../../../../shared/contract/payments'
import { linkHash } from '../../../../shared/links'
import { formatAge, formatDuration, formatMoment } from '../../../../shared/time'
import { StatusBadge } from '../Status'
import type { Tone } from '../Status'
import { sourceStateLabels } from '../sources/SourceProgress'
import { Fact, Tile } from './Tile'
import { ReplayFact } from './ReplayFact'
import type { ReplayStatus } from '../../../../shared/contract/replay'
import { EndpointDeadlines } from './EndpointDeadlines'

const n = (v: number) => v.toLocaleString('en-US')
/** "13:07:01 (12 s ago)": the moment in the one format, and its age. */
const when = (at: number, now: number) => `${formatMoment(at, now)} (${formatAge(at, now)})`
const loading = { tone: 'muted' as const, label: 'loading' }

export function IncidentsTile({ open, now }: { open: Incident[] | null; now: number }) {
  const state = !open
    ? loading
    : open.length === 0
      ? { tone: 'good' as const, label: 'none open' }
      : {
          tone: open.some((i) => i.severity === 'critical') ? ('bad' as const) : ('warn' as const),
          label: `${n(open.length)} open`,
        }
  const shown = open?.slice(0, 3) ?? []
  return (
    <Tile title="Incidents" href="#/alerts" linkLabel="open Alerts" {...state}>
      {open?.length === 0 && <p className="hint">Nothing is firing.</p>}
      <ul className="tile-list">
        {shown.map((i) => (
          <li key={i.id}>
            <a href={linkHash({ view: 'alerts', incidentId: i.id })} title={i.detail}>
              {i.title}
            </a>{' '}
            <span className="dim num">since {when(i.openedAt, now)}</span>
          </li>
        ))}
      </ul>
      {open && open.length > shown.length && (
        <a href="#/alerts" className="tile-more">
          {n(open.length - shown.length)} more open
        </a>
      )}
    </Tile>
  )
}

function listenerState(status: ListenerStatus): { tone: Tone; label: string } {
  if (!status.listening) return { tone: 'bad', label: 'not listening' }
  if (status.storage.state !== 'ok') return { tone: 'bad', label: 'cannot store' }
  if (status.secretsProblem) return { tone: 'warn', label: 'listening, no secret' }
  return { tone: 'good', label: 'listening' }
}

export function ListenerTile({
  status,
  now,
  replay = null,
}: {
  status: ListenerStatus | null
  now: number
  /** The replay sentinel's suspects (its own fact in this tile). */
  replay?: ReplayStatus | null
}) {
  if (!status)
    return (
      <Tile title="Webhook listener" href="#/events" linkLabel="open Events" {...loading}>
        {null}
      </Tile>
    )
  const { activity } = status
  const partialHour = now - activity.since < 3_600_000
  const lastRejection = status.recentRejections[0]
  return (
    <Tile title="Webhook listener" href="#/events" linkLabel="open Events" {...listenerState(status)}>
      {!status.listening && <p className="tile-problem">{status.problem}</p>}
      <Fact label="events">
        <span className="num">{n(activity.lastMinute)}</span> in the last minute ·{' '}
        <span className="num">{n(activity.lastHour)}</span>{' '}
        {partialHour ? `in the ${formatDuration(now - activity.since)} since start` : 'in the last hour'}
      </Fact>
      <Fact label="last event">
        {activity.lastEventAt === null ? (
          'none yet'
        ) : (
          <span className="num">{when(activity.lastEventAt, now)}</span>
        )}
      </Fact>
      <Fact label="rejected">
        {status.rejected === 0 ? (
          'none since start'
        ) : (
          <>
            <StatusBadge tone="warn" label={n(status.rejected)} /> since start
            {lastRejection && <span className="dim">, last {formatAge(lastRejection.at, now)}</span>}
          </>
        )}
      </Fact>
      <ReplayFact status={replay} now={now} />
    </Tile>
  )
}

export function ForwardTile({ status, now }: { status: ForwardStatus | null; now: number }) {
  const title = 'Forwarding'
  const link = { href: '#/settings', linkLabel: 'open Settings → Forward targets' }
  if (!status)
    return (
      <Tile title={title} {...link} {...loading}>
        {null}
      </Tile>
    )
  const targets = status.targets.filter((t) => t.enabled)
  const failing = targets.filter((t) => t.health === 'failing')
  const queued = targets.reduce((sum, t) => sum + t.pending, 0)
  const state = status.problem
    ? { tone: 'bad' as const, label: 'not running' }
    : targets.length === 0
      ? { tone: 'muted' as const, label: 'no targets' }
      : failing.length
        ? { tone: 'bad' as const, label: `${failing.length} of ${targets.length} failing` }
        : { tone: 'good' as const, label: `${targets.length} delivering` }
  return (
    <Tile title={title} {...link} {...state}>
      {status.problem && <p className="tile-problem">{status.problem}</p>}
      {targets.length === 0 && !status.problem && (
        <p className="hint">No forward target: events stay here only.</p>
      )}
      {targets.length > 0 && (
        <Fact label="queued">
          <span className="num">{n(queued)}</span>
        </Fact>
      )}
      {failing.slice(0, 2).map((t) => (
        <Fact key={t.name} label={t.name}>
          <span className="tile-problem-inline">{t.lastError ?? 'failing'}</span>
          {t.lastOkAt !== null && <span className="dim"> · last ok {formatAge(t.lastOkAt, now)}</span>}
        </Fact>
      ))}
      {failing.length > 2 && <span className="dim">and {failing.length - 2} more failing</span>}
    </Tile>
  )
}

const sourceTone = (s: SourceStatus) => sourceStateLabels[s.state][1]
const toneOrder: Tone[] = ['bad', 'warn', 'info', 'good', 'muted']

function sourceDetail(s: SourceStatus, now: number): string | null {
  if (s.state === 'catching-up')
    return s.remaining === null ? `${n(s.synced)} synced` : `${n(s.synced)} synced, ${n(s.remaining)} to go`
  if (s.state === 'live') return s.lastContactAt === null ? null : `heard ${formatAge(s.lastContactAt, now)}`
  if (s.state === 'unreachable')
    return s.lastContactAt === null ? 'never reached' : `since ${when(s.lastContactAt, now)}`
  return s.problem
}

export function SourcesTile({ sources, now }: { sources: SourceStatus[] | null; now: number }) {
  const title = 'Relay sources'
  const link = { href: '#/settings', linkLabel: 'open Settings → Sources' }
  if (!sources)
    return (
      <Tile title={title} {...link} {...loading}>
        {null}
      </Tile>
    )
  const enabled = sources.filter((s) => s.state !== 'disabled')
  const worst = toneOrder.find((t) => enabled.some((s) => sourceTone(s) === t)) ?? 'muted'
  const troubled = enabled.filter((s) => ['bad', 'warn'].includes(sourceTone(s))).length
  const label =
    enabled.length === 0
      ? 'none'
      : troubled
        ? `${troubled} of ${enabled.length} not syncing`
        : `${enabled.length} following`
  return (
    <Tile title={title} {...link} tone={enabled.length ? worst : 'muted'} label={label}>
      {sources.length === 0 && <p className="hint">This console follows no relay.</p>}
      <ul className="tile-list">
        {sources.slice(0, 4).map((s) => {
          const [word, tone] = sourceStateLabels[s.state]
          const detail = sourceDetail(s, now)
          return (
            <li key={s.name} aria-label={`source ${s.name}: ${word}`}>
              <span className="mono">{s.name}</span> <StatusBadge tone={tone} label={word} />
              {detail && <span className="dim"> {detail}</span>}
            </li>
          )
        })}
      </ul>
      {sources.length > 4 && <span className="dim">and {sources.length - 4} more</span>}
    </Tile>
  )
}

export function PublicUrlTile({ state, now }: { state: PublicUrlState | null; now: number }) {
  const title = 'Public URL'
  const link = { href: '#/settings', linkLabel: 'open Settings → Webhook endpoints' }
  if (!state)
    return (
      <Tile title={title} {...link} {...loading}>
        {null}
      </Tile>
    )
  const badge: { tone: Tone; label: string } = !state.url
    ? { tone: 'muted', label: 'not set' }
    : state.state === 'reachable'
      ? { tone: 'good', label: 'reaches the listener' }
      : state.state === 'unreachable'
        ? { tone: 'bad', label: 'unreachable' }
        : { tone: 'muted', label: 'not checked yet' }
  return (
    <Tile title={title} {...link} {...badge}>
      {state.url && <span className="mono tile-url">{state.url}</span>}
      {state.checkedAt !== null && (
        <Fact label="checked">
          <span className="num">{when(state.checkedAt, now)}</span>
        </Fact>
      )}
      {(!state.url || state.state === 'unreachable') && <p className="hint">{state.message}</p>}
      <EndpointDeadlines now={now} />
    </Tile>
  )
}
