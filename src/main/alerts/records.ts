import type { AlertRecord, Incident, MuteInfo } from '../../shared/contract/alerts'
import { err, ok } from '../../shared/result'
import type { Result } from '../../shared/result'
import { describeConsoleMute, describeWindow } from './mute'
import type { AlertParts } from './parts'

export interface RecordsDeps extends AlertParts {
  openCount(): number
}

export interface AlertRecords {
  incidents(filter: { serviceId?: number; rule?: string; open?: boolean; limit: number }): Result<Incident[]>
  log(limit: number, incidentId?: number): Result<AlertRecord[]>
  mutes(): MuteInfo[]
  mute(minutes: number, serviceIds?: number[], reason?: string): Result<MuteInfo>
  unmute(id: string): Result<{ removed: boolean }>
  /** A console page displayed these desktop alerts (alert log ids). */
  shown(ids: number[]): Result<{ marked: number }>
  /** Desktop alerts of the last 24 hours no console page displayed (serve mode). */
  missed(): Result<AlertRecord[]>
}

/** What the alerts have stored, read and changed from the console: incidents, the alert log, the
 * mutes, and which desktop alerts a console page displayed. A storage fault is an answer. */
export function alertRecords(deps: RecordsDeps): AlertRecords {
  const { store, clock } = deps
  /** Runs a read or write; a failure is told to the storage health and answered `unavailable`. */
  const guarded = <T>(what: string, failed: string, run: () => T): Result<T> => {
    try {
      return ok(run())
    } catch (error) {
      deps.storage.failed(what, error)
      return err('unavailable', `${failed}: ${(error as Error).message}`)
    }
  }
  return {
    incidents: (filter) =>
      guarded('alert incidents', 'Incidents could not be read', () => store.incidents(filter)),
    log: (limit, incidentId) =>
      guarded('alert log', 'The alert log could not be read', () => store.log(limit, incidentId)),
    mutes() {
      const now = clock.now()
      return [
        ...deps.config().mute.map((w, i) => describeWindow(w, i, now)),
        ...deps.writing('alert mutes', () => store.mutes(now), []).map((m) => describeConsoleMute(m, now)),
      ]
    },
    mute(minutes, serviceIds, reason) {
      const now = clock.now()
      return guarded('alert mute', 'The mute could not be stored', () => {
        const m = store.addMute(
          {
            from: now,
            to: now + minutes * 60_000,
            chains: serviceIds?.length ? serviceIds : null,
            reason: reason ?? null,
          },
          now,
        )
        deps.log.info('alerts muted from the console', { minutes, chains: m.chains })
        return describeConsoleMute(m, now)
      })
    },
    unmute(id) {
      const n = Number(id)
      if (!Number.isInteger(n))
        return err(
          'bad_request',
          `"${id}" is a maintenance window from the config: edit alerts.mute to change it.`,
        )
      return guarded('alert mute', 'The mute could not be removed', () => ({ removed: store.removeMute(n) }))
    },
    shown: (ids) =>
      guarded('alert log', 'The alert log could not be updated', () => {
        const marked = store.markShown(ids, 'shown in a console page')
        if (marked > 0) deps.push.publish('alerts.changed', { openIncidents: deps.openCount() })
        return { marked }
      }),
    missed: () =>
      guarded('alert log', 'The alert log could not be read', () =>
        store.notShown(clock.now() - 24 * 3_600_000),
      ),
  }
}
