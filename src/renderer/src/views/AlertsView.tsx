import { useFirstLoad, useViewReady } from '../hooks/useViewReady'
import { AlertLog } from '../components/alerts/AlertLog'
import { IncidentTable } from '../components/alerts/IncidentTable'
import { useAlertsStore } from '../stores/alerts'
import { useChainsStore } from '../stores/chains'
import { StatusBadge } from '../components/Status'

/** Incidents with filters, the alert log, and mutes (maintenance windows and "mute 1 h"). */
export function AlertsView() {
  const { incidents, log, mutes, filter, error, load, setFilter, mute, unmute, linkedIncident } =
    useAlertsStore()
  const registry = useChainsStore((s) => s.registry)
  useViewReady('alerts', useFirstLoad(load))
  const open = incidents.filter((i) => i.closedAt === null).length
  const activeMutes = mutes.filter((m) => m.activeNow)
  return (
    <div className="view">
      <header className="view-head">
        <h1>Alerts</h1>
        <StatusBadge tone={open ? 'bad' : 'good'} label={open ? `${open} open` : 'no open incident'} />
        {activeMutes.length > 0 && (
          <StatusBadge tone="warn" label={`muted: ${activeMutes.map((m) => m.description).join('; ')}`} />
        )}
      </header>
      {error && <p className="banner banner-bad">{error.message}</p>}
      <section className="panel">
        <div className="panel-head">
          <h2>Incidents</h2>
          <span className="spacer" />
          <label>
            Chain{' '}
            <select
              value={filter.serviceId ?? ''}
              onChange={(e) =>
                setFilter({ ...filter, serviceId: e.target.value ? Number(e.target.value) : undefined })
              }
            >
              <option value="">all</option>
              {registry.map((c) => (
                <option key={c.serviceId} value={c.serviceId}>
                  {c.name}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            State{' '}
            <select
              value={filter.open === undefined ? '' : filter.open ? 'open' : 'closed'}
              onChange={(e) =>
                setFilter({ ...filter, open: e.target.value === '' ? undefined : e.target.value === 'open' })
              }
            >
              <option value="">all</option>
              <option value="open">open</option>
              <option value="closed">closed</option>
            </select>
          </label>
        </div>
        <IncidentTable incidents={incidents} label="Incidents" linked={linkedIncident} />
      </section>
      <section className="panel">
        <div className="panel-head">
          <h2>Mutes</h2>
          <span className="spacer" />
          <button onClick={() => void mute(60)}>Mute all 1 h</button>
        </div>
        {mutes.length === 0 ? (
          <p className="hint">No maintenance window (alerts.mute in the config) and no mute.</p>
        ) : (
          <ul className="plain-list">
            {mutes.map((m) => (
              <li key={m.id}>
                <StatusBadge
                  tone={m.activeNow ? 'warn' : 'muted'}
                  label={m.activeNow ? 'on now' : 'off now'}
                />{' '}
                {m.description}{' '}
                {m.source !== 'config' && <button onClick={() => void unmute(m.id)}>End</button>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="panel">
        <h2>Alert log</h2>
        <AlertLog records={log} />
      </section>
    </div>
  )
}
