import type { Database } from 'better-sqlite3'
import { alertEventCursorKey } from '../db'
import type { Alert, AlertRecord, AlertSeverity, Incident, IncidentCause } from '../../shared/contract/alerts'
import type { ConsoleMute } from './mute'

/** Incidents, the alert log and console mutes in SQLite (one writer: the alerts service). */
export interface AlertStore {
  openIncident(i: {
    rule: string
    subject: string
    serviceId: number | null
    severity: AlertSeverity
    title: string
    detail: string
    openedAt: number
    causes: IncidentCause[]
  }): number
  /** Its headline (the most severe cause), peak severity and timeline after a cause changed. */
  updateIncident(
    id: number,
    i: { rule: string; severity: AlertSeverity; title: string; detail: string; causes: IncidentCause[] },
  ): void
  closeIncident(id: number, closedAt: number, reason: string, causes: IncidentCause[]): void
  openIncidents(): Incident[]
  incidents(filter: { serviceId?: number; rule?: string; open?: boolean; limit: number }): Incident[]
  /** Answers the log row's id. */
  record(alert: Alert, channel: string, result: AlertRecord['result'], detail: string | null): number
  /** The last event seq already turned into alerts (the alerts' cursor over committed events). */
  eventCursor(): number
  /** One transaction: an outbox row per (alert, channel), and the event cursor moved to `cursor`
   * (when given), so a crash after it loses no alert and repeats none. */
  queue(items: { alert: Alert; channel: string }[], cursor: number | null, at: number): void
  /** Outbox rows not yet answered (oldest first): owed from before a crash, or in flight. */
  pending(): OutboxRow[]
  /** One transaction: the alert log row written, the outbox row gone. */
  complete(
    id: number,
    alert: Alert,
    channel: string,
    result: AlertRecord['result'],
    detail: string | null,
  ): number
  /** One transaction: a row that could not be sent (unreadable, or its send threw) logged as
   * failed with `detail`, its outbox row gone. */
  discard(row: OutboxRow, detail: string, at: number): number
  /** Desktop alerts that no console page displayed yet (serve mode), oldest first. */
  notShown(since: number): AlertRecord[]
  /** Marks desktop alert log rows as shown by a console page. */
  markShown(ids: number[], detail: string): number
  log(limit: number, incidentId?: number): AlertRecord[]
  /** A mute without `source` is the console's. */
  addMute(
    m: Omit<ConsoleMute, 'id' | 'source'> & { source?: ConsoleMute['source'] },
    now: number,
  ): ConsoleMute
  removeMute(id: number): boolean
  mutes(now: number): ConsoleMute[]
}

export interface OutboxRow {
  id: number
  channel: string
  /** null: the stored alert is not readable (not JSON, not an alert). */
  alert: Alert | null
}

/** A stored alert as written by `queue`; null when it cannot be one. */
function readAlert(text: string): Alert | null {
  try {
    const value = JSON.parse(text) as unknown
    const a = value as Partial<Alert> | null
    return a && typeof a === 'object' && typeof a.rule === 'string' && typeof a.t === 'number'
      ? (a as Alert)
      : null
  } catch {
    return null
  }
}

interface LogRow {
  id: number
  t: number
  incident_id: number | null
  rule: string
  subject: string
  kind: AlertRecord['kind']
  title: string
  channel: string
  result: AlertRecord['result']
  detail: string | null
  events: string | null
}

const toRecord = (r: LogRow): AlertRecord => ({
  id: r.id,
  t: r.t,
  rule: r.rule,
  subject: r.subject,
  kind: r.kind,
  title: r.title,
  channel: r.channel,
  result: r.result,
  detail: r.detail,
  incidentId: r.incident_id,
  ...(r.events ? { events: JSON.parse(r.events) as string[] } : {}),
})

const cursorKey = alertEventCursorKey

interface IncidentRow {
  id: number
  rule: string
  subject: string
  service_id: number | null
  severity: string
  title: string
  detail: string
  opened_at: number
  closed_at: number | null
  closed_reason: string | null
  alerts: number
  causes: string | null
}

const toIncident = (r: IncidentRow): Incident => ({
  id: r.id,
  rule: r.rule,
  subject: r.subject,
  serviceId: r.service_id,
  severity: r.severity as AlertSeverity,
  title: r.title,
  detail: r.detail,
  openedAt: r.opened_at,
  closedAt: r.closed_at,
  durationMs: r.closed_at === null ? null : r.closed_at - r.opened_at,
  closedReason: r.closed_at === null ? null : (r.closed_reason ?? 'recovered'),
  alerts: r.alerts,
  causes: r.causes ? (JSON.parse(r.causes) as IncidentCause[]) : [],
})

export function createAlertStore(db: Database): AlertStore {
  const insertIncident = db.prepare(
    `INSERT INTO alert_incidents (rule, subject, service_id, severity, title, detail, opened_at, causes)
     VALUES (@rule, @subject, @serviceId, @severity, @title, @detail, @openedAt, @causes)`,
  )
  const update = db.prepare(
    `UPDATE alert_incidents SET rule = @rule, severity = @severity, title = @title, detail = @detail,
     causes = @causes WHERE id = @id AND closed_at IS NULL`,
  )
  const close = db.prepare(
    `UPDATE alert_incidents SET closed_at = ?, closed_reason = ?, causes = ? WHERE id = ? AND closed_at IS NULL`,
  )
  const selectOpen = db.prepare(`SELECT * FROM alert_incidents WHERE closed_at IS NULL ORDER BY opened_at`)
  const insertLog = db.prepare(
    `INSERT INTO alert_log (t, incident_id, rule, subject, kind, title, channel, result, detail, events)
     VALUES (@t, @incidentId, @rule, @subject, @kind, @title, @channel, @result, @detail, @events)`,
  )
  const readCursor = db.prepare(`SELECT value FROM meta WHERE key = '${cursorKey}'`)
  const writeCursor = db.prepare(
    `INSERT INTO meta (key, value) VALUES ('${cursorKey}', CAST(? AS TEXT))
     ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
  )
  const insertOutbox = db.prepare(`INSERT INTO alert_outbox (channel, alert, created_at) VALUES (?, ?, ?)`)
  const deleteOutbox = db.prepare(`DELETE FROM alert_outbox WHERE id = ?`)
  const selectOutbox = db.prepare(`SELECT id, channel, alert FROM alert_outbox ORDER BY id`)
  const queueAll = db.transaction(
    (items: { alert: Alert; channel: string }[], cursor: number | null, at: number) => {
      for (const i of items) insertOutbox.run(i.channel, JSON.stringify(i.alert), at)
      if (cursor !== null) writeCursor.run(cursor)
    },
  )
  const countAlert = db.prepare(
    `UPDATE alert_incidents SET alerts = alerts + 1, last_alert_at = ? WHERE id = ?`,
  )
  const recordOne = db.transaction((alert: Alert, channel: string, result: string, detail: string | null) => {
    const events = alert.events ? JSON.stringify(alert.events.map((e) => e.id)) : null
    const id = Number(insertLog.run({ ...alert, channel, result, detail, events }).lastInsertRowid)
    if (alert.incidentId !== null) countAlert.run(alert.t, alert.incidentId)
    return id
  })
  const completeOne = db.transaction(
    (id: number, alert: Alert, channel: string, result: string, detail: string | null) => {
      const logId = recordOne(alert, channel, result, detail)
      deleteOutbox.run(id)
      return logId
    },
  )

  return {
    openIncident: (i) =>
      Number(insertIncident.run({ ...i, causes: JSON.stringify(i.causes) }).lastInsertRowid),
    updateIncident: (id, i) => void update.run({ ...i, id, causes: JSON.stringify(i.causes) }),
    closeIncident: (id, closedAt, reason, causes) =>
      void close.run(closedAt, reason, JSON.stringify(causes), id),
    openIncidents: () => (selectOpen.all() as IncidentRow[]).map(toIncident),
    incidents({ serviceId, rule, open, limit }) {
      const where: string[] = []
      const params: unknown[] = []
      if (serviceId !== undefined) {
        where.push('service_id = ?')
        params.push(serviceId)
      }
      if (rule !== undefined) {
        where.push('rule = ?')
        params.push(rule)
      }
      if (open !== undefined) where.push(open ? 'closed_at IS NULL' : 'closed_at IS NOT NULL')
      const sql = `SELECT * FROM alert_incidents ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY opened_at DESC, id DESC LIMIT ?`
      return (db.prepare(sql).all(...params, limit) as IncidentRow[]).map(toIncident)
    },
    record: (alert, channel, result, detail) => recordOne(alert, channel, result, detail),
    eventCursor: () => Number((readCursor.get() as { value: string } | undefined)?.value ?? 0),
    queue: (items, cursor, at) => queueAll(items, cursor, at),
    pending: () =>
      (selectOutbox.all() as { id: number; channel: string; alert: string }[]).map((r) => ({
        id: r.id,
        channel: r.channel,
        alert: readAlert(r.alert),
      })),
    complete: (id, alert, channel, result, detail) => completeOne(id, alert, channel, result, detail),
    discard: db.transaction((row: OutboxRow, detail: string, at: number) => {
      const a = row.alert
      const id = Number(
        insertLog.run({
          t: a?.t ?? at,
          incidentId: a?.incidentId ?? null,
          rule: a?.rule ?? 'alerts.outbox',
          subject: a?.subject ?? `outbox:${row.id}`,
          kind: a?.kind ?? 'fired',
          title: a?.title ?? 'An alert the outbox could not read',
          channel: row.channel,
          result: 'failed',
          detail,
          events: null,
        }).lastInsertRowid,
      )
      deleteOutbox.run(row.id)
      return id
    }),
    notShown: (since) =>
      (
        db
          .prepare(`SELECT * FROM alert_log WHERE result = 'not_shown' AND t >= ? ORDER BY t, id LIMIT 1000`)
          .all(since) as LogRow[]
      ).map(toRecord),
    markShown: (ids, detail) => {
      const mark = db.prepare(
        `UPDATE alert_log SET result = 'sent', detail = ? WHERE id = ? AND result = 'not_shown'`,
      )
      return db.transaction(() => ids.reduce((n, id) => n + mark.run(detail, id).changes, 0))()
    },
    log(limit, incidentId) {
      const rows = (
        incidentId === undefined
          ? db.prepare(`SELECT * FROM alert_log ORDER BY t DESC, id DESC LIMIT ?`).all(limit)
          : db
              .prepare(`SELECT * FROM alert_log WHERE incident_id = ? ORDER BY t DESC, id DESC LIMIT ?`)
              .all(incidentId, limit)
      ) as LogRow[]
      return rows.map(toRecord)
    },
    ...muteStore(db),
  }
}

/** The console's mutes (alert_mutes): ended ones are dropped when one is added. */
function muteStore(db: Database): Pick<AlertStore, 'addMute' | 'removeMute' | 'mutes'> {
  const insertMute = db.prepare(
    `INSERT INTO alert_mutes (from_t, to_t, chains, reason, created_at, source) VALUES (?, ?, ?, ?, ?, ?)`,
  )
  const deleteMute = db.prepare(`DELETE FROM alert_mutes WHERE id = ?`)
  const dropEnded = db.prepare(`DELETE FROM alert_mutes WHERE to_t < ?`)
  const selectMutes = db.prepare(`SELECT * FROM alert_mutes WHERE to_t >= ? ORDER BY from_t`)
  return {
    addMute(m, now) {
      dropEnded.run(now)
      const source = m.source ?? 'console'
      const chains = m.chains ? JSON.stringify(m.chains) : null
      const id = Number(insertMute.run(m.from, m.to, chains, m.reason, now, source).lastInsertRowid)
      return { id, ...m, source }
    },
    removeMute: (id) => deleteMute.run(id).changes > 0,
    mutes: (now) =>
      (
        selectMutes.all(now) as {
          id: number
          from_t: number
          to_t: number
          chains: string | null
          reason: string | null
          source: ConsoleMute['source']
        }[]
      ).map((r) => ({
        id: r.id,
        source: r.source,
        from: r.from_t,
        to: r.to_t,
        chains: r.chains ? (JSON.parse(r.chains) as number[]) : null,
        reason: r.reason,
      })),
  }
}
