import { useEffect, useState } from 'react'
import type { Incident } from '../../../../shared/contract/alerts'
import { backend } from '../../api'
import { useAlertsStore } from '../../stores/alerts'
import { IncidentTable } from './IncidentTable'
import { UptimeBar } from './UptimeBar'

/** The chain drawer's alerts part: uptime heartbeat, this chain's incidents, "mute 1 h". */
export function ChainAlertsPanel({ serviceId, name }: { serviceId: number; name: string }) {
  const [incidents, setIncidents] = useState<Incident[]>([])
  const mute = useAlertsStore((s) => s.mute)
  const changed = useAlertsStore((s) => s.log.length)
  useEffect(() => {
    let live = true
    void backend()
      .call('alerts.incidents', { serviceId, limit: 20 })
      .then((r) => live && r.ok && setIncidents(r.value.incidents))
    return () => {
      live = false
    }
  }, [serviceId, changed])
  return (
    <section className="panel">
      <div className="panel-head">
        <h2>Uptime and incidents</h2>
        <span className="spacer" />
        <button
          onClick={() => void mute(60, [serviceId])}
          title={`Alerts for ${name} are recorded, not sent, for an hour`}
        >
          Mute 1 h
        </button>
      </div>
      <UptimeBar serviceId={serviceId} />
      <IncidentTable incidents={incidents} label={`${name} incidents`} />
    </section>
  )
}
