import type { Database } from 'better-sqlite3'
import { upsertEventSql } from '../../../src/main/webhooks/sql'
import type { EventParams } from '../../../src/main/webhooks/sql'

export const dayMs = 86_400_000

export function eventParams(id: string, at: number): EventParams {
  return {
    id,
    type: 'payout.completed',
    grp: 'payout',
    created_at: new Date(at).toISOString(),
    created_ms: at,
    at,
    endpoint: 'env',
    data_id: null,
    body: Buffer.from(JSON.stringify({ id, type: 'payout.completed', data: { n: id } })),
    data: '{}',
    conflicts: 0,
    conflict_body: null,
  }
}

export interface Seeded {
  /** Old events nothing keeps: retention must remove exactly these. */
  expiredEvents: string[]
  /** Old events kept: a pending or failing forward, an open incident. */
  keptOldEvents: string[]
  recentEvents: string[]
  expiredAttempts: number
  keptAttempts: number
  expiredAlertLog: number
  expiredIncidents: number
  expiredRejections: number
}

/** A database with rows on both sides of the default retention ages (events 90 days, attempts
 * 30, alerts 90, rejections 30), relative to `now`. */
export function seedRetention(db: Database, now: number, oldEvents = 5_000): Seeded {
  const upsert = db.prepare(upsertEventSql)
  const seqOf = (e: EventParams) => (upsert.get(e) as { seq: number }).seq
  const outbox = db.prepare(
    `INSERT INTO forward_outbox (event_seq, target, state, attempts, created_at, due_at) VALUES (?, 'offline', ?, 1, ?, ?) RETURNING id`,
  )
  const attempt = db.prepare(
    `INSERT INTO forward_attempts (outbox_id, event_seq, target, attempt, at, status) VALUES (?, ?, 'offline', 1, ?, 500)`,
  )
  const incident = db.prepare(
    `INSERT INTO alert_incidents (rule, subject, severity, title, detail, opened_at, closed_at) VALUES ('event.type', ?, 'warning', 't', 'd', ?, ?)`,
  )
  const alertLog = db.prepare(
    `INSERT INTO alert_log (t, rule, subject, kind, title, channel, result) VALUES (?, 'event.type', 's', 'fired', 't', 'desktop', 'sent')`,
  )
  const rejection = db.prepare(
    `INSERT INTO webhook_rejections (at, path, status, reason, size, remote) VALUES (?, '/webhooks', 401, 'signature', 10, '127.0.0.1')`,
  )
  const seeded: Seeded = {
    expiredEvents: [],
    keptOldEvents: [],
    recentEvents: [],
    expiredAttempts: 0,
    keptAttempts: 0,
    expiredAlertLog: 0,
    expiredIncidents: 0,
    expiredRejections: 0,
  }
  db.transaction(() => {
    const old = now - 100 * dayMs
    for (let i = 0; i < oldEvents; i++) {
      const e = eventParams(`evt_old_${i}`, old + i)
      const seq = seqOf(e)
      seeded.expiredEvents.push(e.id)
      // Some old events were forwarded long ago: their finished rows and attempts go with them.
      if (i % 100 === 0) {
        const o = outbox.get(seq, 'delivered', old, old) as { id: number }
        attempt.run(o.id, seq, old)
        seeded.expiredAttempts++
      }
    }
    for (const [i, state] of ['pending', 'failing', 'pending'].entries()) {
      const e = eventParams(`evt_old_queued_${i}`, old)
      const seq = seqOf(e)
      const o = outbox.get(seq, state, old, now + dayMs) as { id: number }
      // An attempt 40 days old of a forward still under way stays with it.
      attempt.run(o.id, seq, now - 40 * dayMs)
      seeded.keptAttempts++
      seeded.keptOldEvents.push(e.id)
    }
    const inIncident = eventParams('evt_old_incident', old)
    seqOf(inIncident)
    incident.run(`event:${inIncident.id}`, old, null)
    seeded.keptOldEvents.push(inIncident.id)
    // An incident closed long ago keeps nothing; it goes itself (alerts, 90 days).
    const closed = eventParams('evt_old_closed_incident', old)
    seqOf(closed)
    incident.run(`event:${closed.id}`, old, old + 1000)
    seeded.expiredEvents.push(closed.id)
    seeded.expiredIncidents++
    incident.run('chain:1', now - 10 * dayMs, now - 10 * dayMs + 1000)
    for (let i = 0; i < 200; i++) {
      const e = eventParams(`evt_recent_${i}`, now - 89 * dayMs + i * 1000)
      const seq = seqOf(e)
      seeded.recentEvents.push(e.id)
      if (i % 2 === 0) {
        const o = outbox.get(seq, 'delivered', e.at, e.at) as { id: number }
        // Attempts of recent events: 31 days old (past 30) and 29 days old (kept).
        attempt.run(o.id, seq, now - 31 * dayMs)
        seeded.expiredAttempts++
        attempt.run(o.id, seq, now - 29 * dayMs)
        seeded.keptAttempts++
      }
    }
    for (let i = 0; i < 50; i++) alertLog.run(now - 91 * dayMs)
    seeded.expiredAlertLog = 50
    for (let i = 0; i < 20; i++) alertLog.run(now - 89 * dayMs)
    for (let i = 0; i < 300; i++) rejection.run(now - 31 * dayMs)
    seeded.expiredRejections = 300
    for (let i = 0; i < 30; i++) rejection.run(now - 29 * dayMs)
  })()
  return seeded
}

export function counts(db: Database) {
  const n = (sql: string) => (db.prepare(sql).get() as { n: number }).n
  return {
    events: n('SELECT count(*) AS n FROM events'),
    attempts: n('SELECT count(*) AS n FROM forward_attempts'),
    alertLog: n('SELECT count(*) AS n FROM alert_log'),
    incidents: n('SELECT count(*) AS n FROM alert_incidents'),
    rejections: n('SELECT count(*) AS n FROM webhook_rejections'),
    orphanOutbox: n(
      'SELECT count(*) AS n FROM forward_outbox o WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = o.event_seq)',
    ),
    orphanAttempts: n(
      'SELECT count(*) AS n FROM forward_attempts a WHERE NOT EXISTS (SELECT 1 FROM events e WHERE e.seq = a.event_seq)',
    ),
  }
}

export function eventIds(db: Database): Set<string> {
  return new Set((db.prepare('SELECT id FROM events').all() as { id: string }[]).map((r) => r.id))
}
